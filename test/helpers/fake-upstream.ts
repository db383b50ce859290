import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface UpstreamRequest {
  path: string;
  query: Record<string, string>;
}

export interface FakeUpstream {
  /** Base URL, e.g. `http://127.0.0.1:1234`; the list is at `${url}/v0.1/servers`. */
  url: string;
  /** Every request received, in order. */
  requests: UpstreamRequest[];
  /** Replaces the records served by `GET /v0.1/servers`. */
  setRecords(records: unknown[]): void;
  /** Serves `body` (as is) at `path` for any GET, e.g. a catalog file. */
  setFile(path: string, body: string, contentType?: string): void;
  /** The next `count` requests answer `status` (default 500) with an error body. */
  failNext(count: number, status?: number): void;
  /** Every request answers `status` until called again with undefined. */
  failAlways(status: number | undefined): void;
  /** Waits this long before answering each request. */
  setDelay(ms: number): void;
  /** Stops serving a file set with `setFile`. */
  removeFile(path: string): void;
  /** Back to serving its records normally: no failures, delay, files or oddities; the request log is emptied. */
  reset(): void;
  /** Answers the list with a body that is not JSON. */
  setInvalidJson(on: boolean): void;
  /** Every list page names the same next cursor, so a crawler that follows it never ends. */
  setRepeatingCursor(on: boolean): void;
  close(): Promise<void>;
}

const MAX_LIMIT = 100;

/**
 * A local stand-in for an upstream MCP Registry: `GET /v0.1/servers?limit&cursor` answers
 * `{servers, metadata: {count, nextCursor}}` over the records it was given, and it can be told to
 * misbehave the ways real upstreams do.
 */
export async function startFakeUpstream(records: unknown[] = []): Promise<FakeUpstream> {
  let served = records;
  const files = new Map<string, { body: string; contentType: string }>();
  const requests: UpstreamRequest[] = [];
  let failures = 0;
  let failureStatus = 500;
  let persistentFailure: number | undefined;
  let delayMs = 0;
  let invalidJson = false;
  let repeatingCursor = false;

  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://localhost');
    requests.push({ path: url.pathname, query: Object.fromEntries(url.searchParams) });
    const answer = () => {
      if (response.destroyed) return;
      const send = (status: number, body: string, contentType = 'application/json') => {
        response.writeHead(status, { 'content-type': contentType });
        response.end(body);
      };
      if (persistentFailure !== undefined) return send(persistentFailure, JSON.stringify({ error: 'upstream is failing' }));
      if (failures > 0) {
        failures -= 1;
        return send(failureStatus, JSON.stringify({ error: 'upstream is failing' }));
      }
      const file = files.get(url.pathname);
      if (file) return send(200, file.body, file.contentType);
      if (request.method !== 'GET' || !/^\/v0(\.1)?\/servers$/.test(url.pathname)) return send(404, JSON.stringify({ error: 'not found' }));
      if (invalidJson) return send(200, '<html>Service temporarily unavailable</html>', 'text/html');
      const limit = Math.min(MAX_LIMIT, Math.max(1, Number.parseInt(url.searchParams.get('limit') ?? '30', 10) || 30));
      const cursor = url.searchParams.get('cursor');
      const offset = cursor === null ? 0 : Number.parseInt(Buffer.from(cursor, 'base64url').toString('utf8'), 10);
      if (!Number.isInteger(offset) || offset < 0) return send(400, JSON.stringify({ error: 'invalid cursor' }));
      const page = served.slice(offset, offset + limit);
      const more = offset + limit < served.length;
      const encode = (at: number) => Buffer.from(String(at)).toString('base64url');
      // a repeating upstream always points at its second page
      const nextCursor = repeatingCursor ? encode(limit) : more ? encode(offset + limit) : undefined;
      send(200, JSON.stringify({ servers: page, metadata: { count: page.length, ...(nextCursor !== undefined && { nextCursor }) } }));
    };
    if (delayMs > 0) {
      const timer = setTimeout(answer, delayMs);
      response.on('close', () => clearTimeout(timer));
    } else {
      answer();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    setRecords(next) {
      served = next;
    },
    setFile(path, body, contentType = 'application/json') {
      files.set(path, { body, contentType });
    },
    removeFile(path) {
      files.delete(path);
    },
    reset() {
      files.clear();
      failures = 0;
      persistentFailure = undefined;
      delayMs = 0;
      invalidJson = false;
      repeatingCursor = false;
      requests.length = 0;
    },
    failNext(count, status = 500) {
      failures = count;
      failureStatus = status;
    },
    failAlways(status) {
      persistentFailure = status;
    },
    setDelay(ms) {
      delayMs = ms;
    },
    setInvalidJson(on) {
      invalidJson = on;
    },
    setRepeatingCursor(on) {
      repeatingCursor = on;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
