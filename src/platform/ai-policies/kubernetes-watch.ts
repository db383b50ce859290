import { Watch, type KubeConfig } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { describeFailure, statusCodeOf, type PolicyApi } from './kubernetes-api.js';
import type { KubePolicy } from './kubernetes-objects.js';

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED';

export interface PolicyWatchOptions {
  kubeConfig: KubeConfig;
  api: PolicyApi;
  logger: Logger;
  /** Every object, after each (re)list. */
  onList(items: KubePolicy[]): void;
  onEvent(type: WatchEventType, object: KubePolicy): void;
  /** A list failed: what is known may be stale until a list succeeds again. */
  onLost(reason: string): void;
  reconnectMs?: number;
  maxBackoffMs?: number;
}

export interface PolicyWatch {
  /** Resolves once the first list has succeeded or failed. */
  firstList: Promise<void>;
  stop(): Promise<void>;
}

/** The API server refused a watch from this resourceVersion (410 Gone): only a fresh list can go on. */
class GoneError extends Error {}

/**
 * List, then watch from the list's resourceVersion (informer-like): a watch that ends is resumed from the
 * last version seen, one that fails lists again (410 Gone included), and a failing list is retried with
 * backoff, reported as lost.
 */
export function startPolicyWatch(options: PolicyWatchOptions): PolicyWatch {
  const { logger } = options;
  const abort = new AbortController();
  let resourceVersion = '';
  let active: AbortController | undefined;
  let settleFirst: () => void = () => undefined;
  const firstList = new Promise<void>((resolve) => {
    settleFirst = resolve;
  });

  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        abort.signal.removeEventListener('abort', done);
        resolve();
      }
      abort.signal.addEventListener('abort', done, { once: true });
    });
  // a method call, not a property read: the abort happens while `run` awaits
  const stopping = () => abort.signal.aborted;

  const watchOnce = () =>
    new Promise<void>((resolve, reject) => {
      let settled = false;
      const finish = (error?: unknown) => {
        if (settled) return;
        settled = true;
        abort.signal.removeEventListener('abort', onAbort);
        active?.abort();
        active = undefined;
        if (error === undefined || error === null) resolve();
        else reject(error instanceof Error ? error : new Error('the watch failed'));
      };
      const onAbort = () => finish();
      abort.signal.addEventListener('abort', onAbort, { once: true });
      const query = { allowWatchBookmarks: true, ...(resourceVersion !== '' && { resourceVersion }) };
      const onEvent = (type: string, raw: unknown) => {
        if (settled) return;
        const object = (raw ?? {}) as KubePolicy & { code?: number; message?: string };
        if (type === 'ERROR') return finish(object.code === 410 ? new GoneError('gone') : new Error(`watch error ${String(object.code ?? '')}: ${object.message ?? 'unknown'}`));
        const version = object.metadata?.resourceVersion;
        if (version) resourceVersion = version;
        if (type === 'ADDED' || type === 'MODIFIED' || type === 'DELETED') options.onEvent(type, object);
      };
      new Watch(options.kubeConfig).watch(options.api.path, query, onEvent, (error: unknown) => finish(statusCodeOf(error) === 410 ? new GoneError('gone') : error)).then(
        (controller) => {
          if (settled) controller.abort();
          else active = controller;
        },
        (error: unknown) => finish(error),
      );
    });

  const run = async () => {
    let failures = 0;
    while (!stopping()) {
      try {
        const listed = await options.api.list();
        resourceVersion = listed.resourceVersion;
        failures = 0;
        options.onList(listed.items);
      } catch (error) {
        if (stopping()) return;
        failures++;
        const reason = `cannot list the AI policies: ${describeFailure(error)}`;
        logger.warn({ attempts: failures }, reason);
        options.onLost(reason);
        settleFirst();
        await sleep(Math.min(options.maxBackoffMs ?? 5_000, 250 * 2 ** Math.min(failures - 1, 10)));
        continue;
      }
      settleFirst();
      try {
        for (;;) {
          await watchOnce();
          if (stopping()) return;
          await sleep(options.reconnectMs ?? 200);
        }
      } catch (error) {
        if (stopping()) return;
        if (!(error instanceof GoneError)) logger.info({ reason: describeFailure(error) }, 'the AI policy watch failed; listing again');
        await sleep(options.reconnectMs ?? 200);
      }
    }
  };
  const running = run();

  return {
    firstList,
    async stop() {
      abort.abort();
      active?.abort();
      await running;
    },
  };
}
