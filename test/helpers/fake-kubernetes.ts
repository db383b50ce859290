import { randomUUID } from 'node:crypto';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bodyOf, created, deleted, FakeStatusError, kubeNow, notFound, patched, released, sameJson, statusBody, type FakeFailure, type FakeObject } from './fake-kubernetes-writes.js';

export type { FakeFailure, FakeObject } from './fake-kubernetes-writes.js';

/** `services`, or a custom resource as `group/version/plural`. */
export type FakeCollection = string;

export interface FakeKubeRequest {
  method: string;
  path: string;
  watch: boolean;
  resourceVersion: string | undefined;
}

interface OpenWatch {
  collection: FakeCollection;
  namespace: string | undefined;
  response: ServerResponse;
}

interface StoredEvent {
  rv: number;
  collection: FakeCollection;
  namespace: string;
  type: 'ADDED' | 'MODIFIED' | 'DELETED';
  object: FakeObject;
}

export interface FakeKubernetes {
  url: string;
  requests: FakeKubeRequest[];
  /**
   * Creates or replaces an object as `kubectl apply` would, sending ADDED or MODIFIED to the open watches:
   * uid and creationTimestamp are kept, generation is bumped on a spec change, status is kept unless given.
   */
  apply(collection: FakeCollection, object: FakeObject): void;
  /** Deletes an object, sending DELETED; one held by finalizers gets its deletionTimestamp instead (MODIFIED). */
  remove(collection: FakeCollection, namespace: string, name: string): void;
  /** The stored object, as a GET would answer it. */
  get(collection: FakeCollection, namespace: string, name: string): FakeObject | undefined;
  /** The next request of this method (not a watch) is refused with this Status, as a failing or refusing API server does. */
  failNext(method: 'GET' | 'POST' | 'PATCH' | 'DELETE', failure: FakeFailure): void;
  /** Sends a BOOKMARK with the current resourceVersion to every open watch. */
  bookmark(): void;
  /**
   * Forgets the event history, as etcd compaction does: open watches end (with an ERROR event of code
   * 410 for `event`, or just closed for `http`), and a watch from an older resourceVersion gets 410.
   */
  expire(mode: 'event' | 'http'): void;
  /** Ends every open watch stream, as an API server restart or a load balancer timeout does. */
  closeWatches(): void;
  openWatches(): number;
  lists(): number;
  /** Writes a kubeconfig pointing at this server and returns its path. */
  writeKubeconfig(): Promise<string>;
  close(): Promise<void>;
}

/** One object by name (`GET /api/v1/namespaces/<ns>/secrets/<name>`), or its `/status` subresource. */
const OBJECT_PATH = /^\/(?:api\/v1|apis\/([^/]+)\/([^/]+))\/namespaces\/([^/]+)\/([^/]+)\/([^/]+)(\/status)?$/;
const COLLECTION_PATH = /^\/(?:api\/v1|apis\/([^/]+)\/([^/]+))(?:\/namespaces\/([^/]+))?\/([^/]+)$/;

/**
 * A stand-in for the Kubernetes API server: lists carry metadata.resourceVersion, `?watch=1|true`
 * streams chunked JSON lines from a resourceVersion, and compaction answers 410 Gone; single objects are
 * read by name, created (POST), merge-patched (PATCH, also `/status`) and deleted (DELETE) with the
 * API server's rules (fake-kubernetes-writes.ts). No cluster runs here, so the kubernetes source and
 * the Kubernetes backend of AI policies are tested against it.
 */
export async function startFakeKubernetes(): Promise<FakeKubernetes> {
  const objects = new Map<FakeCollection, Map<string, FakeObject>>();
  let events: StoredEvent[] = [];
  let revision = 100;
  let compactedBefore = 0;
  const watches = new Set<OpenWatch>();
  const requests: FakeKubeRequest[] = [];

  const send = (watch: OpenWatch, type: string, object: unknown) => watch.response.write(`${JSON.stringify({ type, object })}\n`);
  const matches = (watch: OpenWatch, collection: FakeCollection, namespace: string) =>
    watch.collection === collection && (watch.namespace === undefined || watch.namespace === namespace);

  function record(type: StoredEvent['type'], collection: FakeCollection, object: FakeObject): void {
    const event = { rv: revision, collection, namespace: object.metadata.namespace, type, object };
    events.push(event);
    for (const watch of watches) if (matches(watch, collection, event.namespace)) send(watch, type, object);
  }

  const failures: { method: string; failure: FakeFailure }[] = [];
  const itemsOf = (collection: FakeCollection) => {
    const items = objects.get(collection) ?? new Map<string, FakeObject>();
    objects.set(collection, items);
    return items;
  };
  const keyOf = (object: FakeObject) => `${object.metadata.namespace}/${object.metadata.name}`;

  function store(collection: FakeCollection, object: FakeObject, type: 'ADDED' | 'MODIFIED'): FakeObject {
    revision++;
    const stored: FakeObject = structuredClone({ ...object, metadata: { ...object.metadata, resourceVersion: String(revision) } });
    itemsOf(collection).set(keyOf(stored), stored);
    record(type, collection, stored);
    return stored;
  }

  function drop(collection: FakeCollection, object: FakeObject): FakeObject {
    itemsOf(collection).delete(keyOf(object));
    revision++;
    const last = { ...object, metadata: { ...object.metadata, resourceVersion: String(revision) } };
    record('DELETED', collection, last);
    return last;
  }

  /** DELETE as the API server does it: gone at once, or held by finalizers with its deletionTimestamp set. */
  function deleteObject(collection: FakeCollection, current: FakeObject, options: unknown, resource: string): FakeObject | undefined {
    const outcome = deleted(current, options, resource);
    if (outcome.kind === 'gone') {
      drop(collection, current);
      return undefined;
    }
    return outcome.object ? store(collection, outcome.object, 'MODIFIED') : current;
  }

  async function objectRequest(request: IncomingMessage, method: string, single: RegExpExecArray): Promise<[number, unknown]> {
    const [, group, version, namespace = '', plural = '', name = '', status] = single;
    const collection = group === undefined ? plural : `${group}/${version ?? ''}/${plural}`;
    const resource = group === undefined ? plural : `${plural}.${group}`;
    const current = objects.get(collection)?.get(`${namespace}/${name}`);
    if (method === 'GET') {
      if (!current) throw notFound(resource, name);
      return [200, current];
    }
    if (method === 'PATCH') {
      const type = (request.headers['content-type'] ?? '').split(';')[0]?.trim();
      if (type !== 'application/merge-patch+json') throw new FakeStatusError({ code: 415, reason: 'UnsupportedMediaType', message: `the body of the request was in an unknown format - accepted media types include: application/merge-patch+json (got ${type ?? ''})` });
      const patch = await bodyOf(request);
      if (!current) throw notFound(resource, name);
      const next = patched(current, patch, status ? 'status' : 'main', resource);
      if (!next) return [200, current];
      return [200, released(next) ? drop(collection, next) : store(collection, next, 'MODIFIED')];
    }
    if (method === 'DELETE') {
      const options = await bodyOf(request);
      if (!current) throw notFound(resource, name);
      const held = deleteObject(collection, current, options, resource);
      return [200, held ?? { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details: { name, group, kind: plural, uid: current.metadata.uid } }];
    }
    throw new FakeStatusError({ code: 405, reason: 'MethodNotAllowed', message: `${method} is not supported here` });
  }

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://localhost');
    const method = request.method ?? 'GET';
    const watching = ['1', 'true'].includes(url.searchParams.get('watch') ?? '');
    const resourceVersion = url.searchParams.get('resourceVersion') ?? undefined;
    requests.push({ method, path: url.pathname, watch: watching, resourceVersion });
    const reply = (code: number, body: unknown) => response.writeHead(code, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    const failing = watching ? -1 : failures.findIndex((item) => item.method === method);
    if (failing >= 0) {
      const [taken] = failures.splice(failing, 1);
      if (taken) return void reply(taken.failure.code, statusBody(taken.failure));
    }
    try {
      const single = OBJECT_PATH.exec(url.pathname);
      if (single) return void reply(...(await objectRequest(request, method, single)));
      const match = COLLECTION_PATH.exec(url.pathname);
      if (!match) throw new FakeStatusError({ code: 404, reason: 'NotFound', message: 'the server could not find the requested resource' });
      const [, group, version, namespace, plural = ''] = match;
      const collection = group === undefined ? plural : `${group}/${version ?? ''}/${plural}`;
      if (method === 'POST' && namespace !== undefined) {
        const body = await bodyOf(request);
        const name = (body as { metadata?: { name?: unknown } } | undefined)?.metadata?.name;
        const object = created(body, namespace, objects.get(collection)?.get(`${namespace}/${String(name)}`), group === undefined ? plural : `${plural}.${group}`);
        return void reply(201, store(collection, object, 'ADDED'));
      }
      if (method !== 'GET') throw new FakeStatusError({ code: 405, reason: 'MethodNotAllowed', message: `${method} is not supported here` });
      listOrWatch(request, response, { collection, namespace, watching, resourceVersion });
    } catch (error) {
      if (!(error instanceof FakeStatusError)) throw error;
      reply(error.failure.code, statusBody(error.failure));
    }
  }

  function listOrWatch(request: IncomingMessage, response: ServerResponse, query: { collection: FakeCollection; namespace: string | undefined; watching: boolean; resourceVersion: string | undefined }): void {
    const { collection, namespace, watching, resourceVersion } = query;
    const stored = [...(objects.get(collection)?.values() ?? [])].filter((object) => namespace === undefined || object.metadata.namespace === namespace);
    if (!watching) {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ kind: 'List', apiVersion: 'v1', metadata: { resourceVersion: String(revision) }, items: stored }));
      return;
    }
    const from = resourceVersion === undefined ? undefined : Number(resourceVersion);
    if (from !== undefined && from < compactedBefore) {
      response.writeHead(410, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', code: 410, reason: 'Expired', message: 'too old resource version' }));
      return;
    }
    response.writeHead(200, { 'content-type': 'application/json', 'transfer-encoding': 'chunked' });
    response.flushHeaders();
    const watch: OpenWatch = { collection, namespace, response };
    if (from === undefined) for (const object of stored) send(watch, 'ADDED', object);
    else for (const event of events) if (event.rv > from && matches(watch, event.collection, event.namespace)) send(watch, event.type, event.object);
    watches.add(watch);
    const forget = () => watches.delete(watch);
    response.on('close', forget);
    request.on('close', forget);
  }

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      response.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify(statusBody({ code: 500, reason: 'InternalError', message: String(error) })));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const endWatches = (last?: unknown) => {
    for (const watch of [...watches]) {
      if (last !== undefined) send(watch, 'ERROR', last);
      watch.response.end();
      watches.delete(watch);
    }
  };

  return {
    url,
    requests,
    apply(collection, object) {
      const previous = objects.get(collection)?.get(keyOf(object));
      const custom = collection.includes('/');
      const generation = previous?.metadata.generation ?? 0;
      const next: FakeObject = {
        ...object,
        metadata: {
          ...object.metadata,
          uid: previous?.metadata.uid ?? randomUUID(),
          creationTimestamp: previous?.metadata.creationTimestamp ?? kubeNow(),
          ...(previous?.metadata.deletionTimestamp !== undefined && { deletionTimestamp: previous.metadata.deletionTimestamp, deletionGracePeriodSeconds: 0 }),
          ...(custom && { generation: previous && sameJson(previous.spec, object.spec) ? generation : generation + 1 }),
        },
        ...((object.status ?? previous?.status) !== undefined && { status: object.status ?? previous?.status }),
      };
      if (released(next)) drop(collection, next);
      else store(collection, next, previous ? 'MODIFIED' : 'ADDED');
    },
    remove(collection, namespace, name) {
      const previous = objects.get(collection)?.get(`${namespace}/${name}`);
      if (previous) deleteObject(collection, previous, undefined, collection);
    },
    get: (collection, namespace, name) => structuredClone(objects.get(collection)?.get(`${namespace}/${name}`)),
    failNext(method, failure) {
      failures.push({ method, failure });
    },
    bookmark() {
      for (const watch of watches) send(watch, 'BOOKMARK', { kind: 'Bookmark', metadata: { resourceVersion: String(revision) } });
    },
    expire(mode) {
      events = [];
      compactedBefore = revision + 1;
      endWatches(mode === 'event' ? { kind: 'Status', apiVersion: 'v1', status: 'Failure', code: 410, reason: 'Expired', message: 'too old resource version' } : undefined);
    },
    closeWatches: () => endWatches(),
    openWatches: () => watches.size,
    lists: () => requests.filter((request) => request.method === 'GET' && !request.watch && COLLECTION_PATH.test(request.path)).length,
    async writeKubeconfig() {
      const dir = await mkdtemp(join(tmpdir(), 'toolyard-kube-'));
      const path = join(dir, 'kubeconfig.yaml');
      await writeFile(
        path,
        [
          'apiVersion: v1',
          'kind: Config',
          'clusters:',
          `  - name: fake\n    cluster:\n      server: ${url}\n      insecure-skip-tls-verify: true`,
          'users:',
          '  - name: tester\n    user:\n      token: fake-token',
          'contexts:',
          '  - name: fake\n    context:\n      cluster: fake\n      user: tester',
          'current-context: fake',
          '',
        ].join('\n'),
      );
      return path;
    },
    async close() {
      endWatches();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A Service with one port, exported when `annotations` say so. */
export function service(namespace: string, name: string, annotations: Record<string, string> | undefined, port = 8080): FakeObject {
  return { apiVersion: 'v1', kind: 'Service', metadata: { name, namespace, ...(annotations && { annotations }) }, spec: { ports: [{ port, protocol: 'TCP' }] } };
}

export const exported = (name: string, more: Record<string, string> = {}) => ({
  'toolyard.dev/registry-export': 'true',
  'toolyard.dev/registry-name': name,
  ...more,
});

export async function waitFor(check: () => Promise<boolean> | boolean, what: string, timeoutMs = 8_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}
