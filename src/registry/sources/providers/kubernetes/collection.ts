import { ApiException, CoreV1Api, CustomObjectsApi, Watch, type KubeConfig } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { objectKey, type KubeObject } from '../../../../core/kubernetes/objects.js';
import type { KubernetesResource } from '../../../../core/kubernetes/schema.js';

/** One list+watch target: Services or one custom resource, in one namespace or in all of them. */
export interface CollectionTarget {
  /** `services` or `group/version/plural`, with the namespace: for logs and messages. */
  label: string;
  service: boolean;
  namespace: string | undefined;
  resource?: KubernetesResource;
}

export function collectionTargets(namespaces: readonly string[], resources: readonly KubernetesResource[]): CollectionTarget[] {
  const scopes: (string | undefined)[] = namespaces.length === 0 ? [undefined] : [...new Set(namespaces)];
  const targets: CollectionTarget[] = [];
  for (const namespace of scopes) {
    const where = namespace ?? '*';
    targets.push({ label: `services in ${where}`, service: true, namespace });
    for (const resource of resources) {
      targets.push({ label: `${resource.group}/${resource.version}/${resource.plural} in ${where}`, service: false, namespace, resource });
    }
  }
  return targets;
}

export function watchPath(target: CollectionTarget): string {
  const scope = target.namespace === undefined ? '' : `/namespaces/${encodeURIComponent(target.namespace)}`;
  if (!target.resource) return `/api/v1${scope}/services`;
  const { group, version, plural } = target.resource;
  return `/apis/${group}/${version}${scope}/${plural}`;
}

interface ObjectList {
  metadata?: { resourceVersion?: string };
  items?: KubeObject[];
}

/** The API refused a watch from this resourceVersion (410 Gone): only a fresh list can go on. */
class GoneError extends Error {}

export interface CollectionOptions {
  kubeConfig: KubeConfig;
  target: CollectionTarget;
  logger: Logger;
  /** Something in the collection changed (or it was listed): the owner recomputes its snapshot. */
  onChange(): void;
  /** Listing failed; the collection retries with backoff. */
  onError(message: string): void;
  reconnectMs?: number;
  maxBackoffMs?: number;
}

/**
 * Mirrors one collection in memory: list, then watch from the list's resourceVersion, following
 * bookmarks; a closed watch reconnects from the last version seen, a 410 Gone lists again.
 */
export class Collection {
  readonly objects = new Map<string, KubeObject>();
  /** True once the first list succeeded: before that the collection's share of the snapshot is unknown. */
  listed = false;
  lists = 0;
  private resourceVersion = '';
  private readonly abort = new AbortController();
  private running: Promise<void> | undefined;
  private activeWatch: AbortController | undefined;

  constructor(private readonly options: CollectionOptions) {}

  start(): void {
    this.running ??= this.run();
  }

  async stop(): Promise<void> {
    this.abort.abort();
    this.activeWatch?.abort();
    await this.running;
  }

  private async run(): Promise<void> {
    let failures = 0;
    const { logger, target } = this.options;
    while (!this.stopping()) {
      try {
        await this.list();
        failures = 0;
        for (;;) {
          await this.watchOnce();
          if (this.stopping()) return;
          await this.sleep(this.options.reconnectMs ?? 200);
        }
      } catch (error) {
        if (this.stopping()) return;
        if (error instanceof GoneError) {
          logger.info({ collection: target.label }, 'watch expired (410 Gone); listing again');
          continue;
        }
        failures++;
        const message = `cannot read ${target.label}: ${describe(error)}`;
        logger.warn({ collection: target.label, attempts: failures }, message);
        this.options.onError(message);
        await this.sleep(Math.min(this.options.maxBackoffMs ?? 30_000, 500 * 2 ** Math.min(failures - 1, 10)));
      }
    }
  }

  private async list(): Promise<void> {
    const { kubeConfig, target } = this.options;
    let list: ObjectList;
    if (!target.resource) {
      const core = kubeConfig.makeApiClient(CoreV1Api);
      list = target.namespace === undefined ? await core.listServiceForAllNamespaces() : await core.listNamespacedService({ namespace: target.namespace });
    } else {
      const custom = kubeConfig.makeApiClient(CustomObjectsApi);
      const { group, version, plural } = target.resource;
      list = (
        target.namespace === undefined
          ? await custom.listClusterCustomObject({ group, version, plural })
          : await custom.listNamespacedCustomObject({ group, version, plural, namespace: target.namespace })
      ) as ObjectList;
    }
    this.objects.clear();
    for (const item of list.items ?? []) this.objects.set(objectKey(item), item);
    this.resourceVersion = list.metadata?.resourceVersion ?? '';
    this.listed = true;
    this.lists++;
    this.options.onChange();
  }

  /** Resolves when the watch ends normally; throws GoneError to ask for a new list, or the failure. */
  private watchOnce(): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      let settled = false;
      const finish = (error?: unknown) => {
        if (settled) return;
        settled = true;
        this.abort.signal.removeEventListener('abort', onAbort);
        this.activeWatch?.abort();
        this.activeWatch = undefined;
        if (error === undefined) resolve();
        else reject(error instanceof Error ? error : new Error('the watch failed'));
      };
      const onAbort = () => finish();
      this.abort.signal.addEventListener('abort', onAbort, { once: true });
      const query = { allowWatchBookmarks: true, ...(this.resourceVersion !== '' && { resourceVersion: this.resourceVersion }) };
      new Watch(this.options.kubeConfig)
        .watch(
          watchPath(this.options.target),
          query,
          (type: string, object: unknown) => {
            if (!settled) this.apply(type, object, finish);
          },
          (error: unknown) => finish(statusOf(error) === 410 ? new GoneError('gone') : (error ?? undefined)),
        )
        .then(
          (controller) => {
            if (settled) controller.abort();
            else this.activeWatch = controller;
          },
          (error: unknown) => finish(error),
        );
    });
  }

  private apply(type: string, raw: unknown, finish: (error?: unknown) => void): void {
    const object = (raw ?? {}) as KubeObject & { code?: number; message?: string };
    if (type === 'ERROR') {
      finish(object.code === 410 ? new GoneError('gone') : new Error(`watch error ${object.code ?? ''}: ${object.message ?? 'unknown'}`));
      return;
    }
    const version = object.metadata?.resourceVersion;
    if (version) this.resourceVersion = version;
    if (type === 'BOOKMARK') return;
    if (type === 'ADDED' || type === 'MODIFIED') this.objects.set(objectKey(object), object);
    else if (type === 'DELETED') this.objects.delete(objectKey(object));
    else return;
    this.options.onChange();
  }

  /** A method, not a property read: the abort happens while `run` awaits. */
  private stopping(): boolean {
    return this.abort.signal.aborted;
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      const signal = this.abort.signal;
      function done() {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        resolve();
      }
      signal.addEventListener('abort', done, { once: true });
    });
  }
}

function statusOf(error: unknown): number | undefined {
  if (error instanceof ApiException) return error.code;
  const code = (error as { statusCode?: unknown } | null)?.statusCode;
  return typeof code === 'number' ? code : undefined;
}

/** A short reason without response bodies (they may echo request details). */
function describe(error: unknown): string {
  const status = statusOf(error);
  if (status !== undefined) return `HTTP ${status}`;
  return error instanceof Error ? error.message : String(error);
}
