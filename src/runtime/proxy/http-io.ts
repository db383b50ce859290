import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRebindingCheck } from '../../core/net/rebinding.js';
import type { ProxyMode } from '../workloads/schemas.js';
import { asJsonRpcMessage, errorResponse, INVALID_REQUEST, PARSE_ERROR, type JsonRpcMessage } from './jsonrpc.js';

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (res.headersSent || res.destroyed) return;
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

export function sendAccepted(res: ServerResponse): void {
  if (!res.headersSent) res.writeHead(202).end();
}

export function startSse(res: ServerResponse, headers: Record<string, string> = {}): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive', ...headers });
  res.flushHeaders();
}

export function writeSse(res: ServerResponse, message: JsonRpcMessage): void {
  if (!res.destroyed && !res.writableEnded) res.write(`event: message\ndata: ${JSON.stringify(message)}\n\n`);
}

const tooLarge = (res: ServerResponse): void =>
  sendJson(res, 413, errorResponse(null, INVALID_REQUEST, 'request body too large'), { connection: 'close' });

/**
 * Reads one JSON-RPC message from a request body of at most `limit` bytes. On a bad body it
 * answers the request itself (413 or 400) and returns undefined.
 */
export function readMessage(req: IncomingMessage, res: ServerResponse, limit: number): Promise<JsonRpcMessage | undefined> {
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > limit) {
    tooLarge(res);
    return Promise.resolve(undefined);
  }
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size <= limit) {
        chunks.push(chunk);
        return;
      }
      // Stop keeping the body but let it drain, so the client reads the 413 instead of a reset.
      req.off('data', onData);
      req.resume();
      tooLarge(res);
      resolve(undefined);
    };
    req.on('data', onData);
    req.on('end', () => {
      if (size > limit) return;
      let parsed: unknown;
      try {
        parsed = JSON.parse((chunks.length === 1 && chunks[0] !== undefined ? chunks[0] : Buffer.concat(chunks)).toString('utf8'));
      } catch {
        sendJson(res, 400, errorResponse(null, PARSE_ERROR, 'body is not valid JSON'));
        resolve(undefined);
        return;
      }
      const message = asJsonRpcMessage(parsed);
      // Batches were removed from the protocol in 2025-06-18; one message per POST.
      if (message === undefined) sendJson(res, 400, errorResponse(null, INVALID_REQUEST, 'expected one JSON-RPC 2.0 message'));
      resolve(message);
    });
    req.on('error', () => resolve(undefined));
  });
}

/**
 * MCP's transport rules require checking Origin against DNS rebinding: a web page must not reach a
 * local MCP server through a name it re-pointed at this machine. The returned guard answers 403 and
 * returns true when it refuses a request.
 */
export function rebindingGuard(boundHost: string): (req: IncomingMessage, res: ServerResponse) => boolean {
  const refusalOf = createRebindingCheck({ boundHost, anyHostOnWildcard: true, sameHostOrigins: false });
  return (req, res) => {
    const refusal = refusalOf(req.headers);
    if (refusal === undefined) return false;
    sendJson(res, 403, errorResponse(null, INVALID_REQUEST, refusal));
    return true;
  };
}

/** The URL a client uses for `path` on a proxy listening at host:port (IPv6 hosts in brackets). */
export function endpointUrl(port: number, host: string, path: string): string {
  const shownHost = host.includes(':') ? `[${host}]` : host;
  return `http://${shownHost}:${String(port)}${path}`;
}

/**
 * The URL clients use: the proxy mode of a stdio workload or the transport of an HTTP one
 * decides between Streamable HTTP at /mcp and SSE at /sse.
 */
export function proxyUrl(port: number, host: string, modeOrTransport: ProxyMode): string {
  return endpointUrl(port, host, modeOrTransport === 'sse' ? '/sse' : '/mcp');
}

/** Listens on host:port (0: any free port) and gives the port taken and the URL clients use for `path`. */
export function listenOn(server: Server, port: number, host: string, path: string): Promise<{ port: number; url: string }> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      const taken = (server.address() as AddressInfo).port;
      resolve({ port: taken, url: endpointUrl(taken, host, path) });
    });
  });
}

/** Stops listening and ends open connections (SSE streams never end on their own). */
export function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
