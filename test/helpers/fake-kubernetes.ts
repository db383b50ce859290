import { mkdtemp, writeFile } from 'node:fs/promises';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** `services`, or a custom resource as `group/version/plural`. */
export type FakeCollection = string;

export interface FakeObject {
  apiVersion?: string;
  kind?: string;
  metadata: { name: string; namespace: string; annotations?: Record<string, string>; resourceVersion?: string; uid?: string };
  spec?: Record<string, unknown>;
  status?: Record<string, unknown>;
  /** A Secret's values, base64 as the API gives them. */
  data?: Record<string, string>;
}

export interface FakeKubeRequest {
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
  /** Creates or replaces an object, sending ADDED or MODIFIED to the open watches. */
  apply(collection: FakeCollection, object: FakeObject): void;
  /** Deletes an object, sending DELETED. */
  remove(collection: FakeCollection, namespace: string, name: string): void;
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

/** One object by name: `GET /api/v1/namespaces/<ns>/secrets/<name>` (how Secrets are read at use time). */
const OBJECT_PATH = /^\/(?:api\/v1|apis\/([^/]+)\/([^/]+))\/namespaces\/([^/]+)\/([^/]+)\/([^/]+)$/;
const COLLECTION_PATH = /^\/(?:api\/v1|apis\/([^/]+)\/([^/]+))(?:\/namespaces\/([^/]+))?\/([^/]+)$/;

/**
 * A stand-in for the Kubernetes API server, enough for list+watch: lists carry
 * metadata.resourceVersion, `?watch=1|true` streams chunked JSON lines from a resourceVersion, and
 * compaction answers 410 Gone; single objects are read by name. No cluster runs here, so the kubernetes source is tested against it.
 */
export async function startFakeKubernetes(): Promise<FakeKubernetes> {
  const objects = new Map<FakeCollection, Map<string, FakeObject>>();
  let events: StoredEvent[] = [];
  let revision = 100;
  let compactedBefore = 0;
  let uid = 0;
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

  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://localhost');
    const match = COLLECTION_PATH.exec(url.pathname);
    const watching = ['1', 'true'].includes(url.searchParams.get('watch') ?? '');
    const resourceVersion = url.searchParams.get('resourceVersion') ?? undefined;
    requests.push({ path: url.pathname, watch: watching, resourceVersion });
    const single = OBJECT_PATH.exec(url.pathname);
    if (single && request.method === 'GET') {
      const [, group, version, namespace, plural, name] = single;
      const collection = group === undefined ? (plural ?? '') : `${group}/${version ?? ''}/${plural ?? ''}`;
      const found = objects.get(collection)?.get(`${namespace ?? ''}/${name ?? ''}`);
      if (found) response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(found));
      else response.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', code: 404, reason: 'NotFound', message: `${plural ?? ''} "${name ?? ''}" not found` }));
      return;
    }
    if (!match || request.method !== 'GET') {
      response.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', code: 404, reason: 'NotFound' }));
      return;
    }
    const [, group, version, namespace, plural] = match;
    const collection = group === undefined ? (plural ?? '') : `${group}/${version ?? ''}/${plural ?? ''}`;
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
      const items = objects.get(collection) ?? new Map<string, FakeObject>();
      objects.set(collection, items);
      const key = `${object.metadata.namespace}/${object.metadata.name}`;
      const previous = items.get(key);
      revision++;
      const stored: FakeObject = structuredClone({ ...object, metadata: { ...object.metadata, resourceVersion: String(revision), uid: previous?.metadata.uid ?? `uid-${++uid}` } });
      items.set(key, stored);
      record(previous ? 'MODIFIED' : 'ADDED', collection, stored);
    },
    remove(collection, namespace, name) {
      const items = objects.get(collection);
      const previous = items?.get(`${namespace}/${name}`);
      if (!items || !previous) return;
      items.delete(`${namespace}/${name}`);
      revision++;
      record('DELETED', collection, { ...previous, metadata: { ...previous.metadata, resourceVersion: String(revision) } });
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
    lists: () => requests.filter((request) => !request.watch).length,
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
