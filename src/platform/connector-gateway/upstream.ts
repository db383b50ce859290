import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpError, ResultSchema } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from 'pino';
import type { ConnectorRow } from '../connectors/store.js';
import type { UpstreamTransports } from '../connectors/mcp-transport.js';
import { forwardRequest } from './forward.js';

/** An upstream tool exactly as its server listed it (the gateway passes it on unchanged). */
export interface UpstreamTool {
  name: string;
  description?: string;
  inputSchema?: unknown;
  annotations?: { readOnlyHint?: boolean; destructiveHint?: boolean; [key: string]: unknown };
  [key: string]: unknown;
}

/** A tools/call answer as the upstream gave it. */
export type UpstreamResult = Record<string, unknown> & { isError?: boolean };

/** A JSON-RPC error the upstream answered with (passed on as it is). */
export type UpstreamRpcError = McpError;

export interface UpstreamPool {
  /** Every tool of the connector's server (all pages), within 30 s. */
  listTools(connector: ConnectorRow, headers: Record<string, string>): Promise<UpstreamTool[]>;
  /** Forwards one tools/call, within 60 s; rejects with McpError for an upstream JSON-RPC error. */
  callTool(connector: ConnectorRow, headers: Record<string, string>, params: Record<string, unknown>): Promise<UpstreamResult>;
  /** Closes the clients of connectors that changed or went (`current` maps id → current row). */
  retire(current: ReadonlyMap<string, ConnectorRow>): void;
  close(): Promise<void>;
}

export interface UpstreamPoolOptions {
  transports: UpstreamTransports;
  logger: Logger;
  listTimeoutMs?: number;
  callTimeoutMs?: number;
  /** A client unused this long is closed (credentials rotate, users go). */
  idleMs?: number;
  /** At most this many open clients; the least recently used goes first. */
  maxClients?: number;
  /** Sessions opened per connector and credential while every open one is busy (an upstream may serve one session's requests in turn). */
  sessionsPerKey?: number;
}

interface Pooled {
  connectorId: string;
  version: number;
  client: Promise<Client>;
  lastUsed: number;
  /** Requests on this client now. */
  busy: number;
}

const CLIENT_INFO = { name: 'toolyard-connector-gateway', version: '1.0.0' };
const CONNECT_TIMEOUT_MS = 30_000;

const versionOf = (connector: ConnectorRow) => connector.updated_at.getTime();

/** The pool key: the connector as it is now, and the credential headers (one upstream session per caller credential). */
function keyOf(connector: ConnectorRow, headers: Record<string, string>): string {
  const names = Object.keys(headers).sort();
  return `${connector.id}\u0000${String(versionOf(connector))}\u0000${JSON.stringify(names.map((name) => [name, headers[name]]))}`;
}

/**
 * Upstream MCP clients (the official SDK), opened once and reused per connector version and credential
 * headers: an MCP initialize per call would cost more than the call. A client whose transport fails is
 * dropped and the next request opens a new one.
 */
export function createUpstreamPool(options: UpstreamPoolOptions): UpstreamPool {
  const { transports, logger } = options;
  const listTimeoutMs = options.listTimeoutMs ?? 30_000;
  const callTimeoutMs = options.callTimeoutMs ?? 60_000;
  const idleMs = options.idleMs ?? 5 * 60_000;
  const maxClients = options.maxClients ?? 1_000;
  const sessionsPerKey = options.sessionsPerKey ?? 8;
  const pool = new Map<string, Pooled>();

  const drop = (key: string, entry: Pooled) => {
    if (pool.get(key) !== entry) return;
    pool.delete(key);
    void entry.client.then((client) => client.close()).catch(() => undefined);
  };

  const sweep = setInterval(() => {
    const now = Date.now();
    for (const [key, entry] of pool) if (now - entry.lastUsed > idleMs) drop(key, entry);
  }, Math.min(idleMs, 60_000));
  sweep.unref();

  const open = (connector: ConnectorRow, headers: Record<string, string>): Promise<Client> => {
    const client = new Client(CLIENT_INFO);
    const transport = transports({ endpoint: connector.endpoint, transport: connector.transport, allowPrivateIps: connector.allow_private_ips, headers });
    return client.connect(transport, { timeout: CONNECT_TIMEOUT_MS }).then(() => client);
  };

  /** The least busy open session for the key; a new one while all are busy and there are fewer than `sessionsPerKey`. */
  const lease = (connector: ConnectorRow, headers: Record<string, string>): { key: string; entry: Pooled } => {
    const base = keyOf(connector, headers);
    const now = Date.now();
    let chosen: { key: string; entry: Pooled } | undefined;
    let free: string | undefined;
    for (let slot = 0; slot < sessionsPerKey; slot++) {
      const key = `${base}\u0000${String(slot)}`;
      const known = pool.get(key);
      if (!known) {
        free ??= key;
        continue;
      }
      if (!chosen || known.busy < chosen.entry.busy) chosen = { key, entry: known };
      if (known.busy === 0) break;
    }
    if (chosen && (chosen.entry.busy === 0 || free === undefined)) {
      chosen.entry.lastUsed = now;
      // most recently used last: the first entry is the one to close when the pool is full
      pool.delete(chosen.key);
      pool.set(chosen.key, chosen.entry);
      return chosen;
    }
    const key = free ?? `${base}\u00000`;
    if (pool.size >= maxClients) {
      const [oldestKey, oldest] = pool.entries().next().value as [string, Pooled];
      drop(oldestKey, oldest);
    }
    const entry: Pooled = { connectorId: connector.id, version: versionOf(connector), client: open(connector, headers), lastUsed: now, busy: 0 };
    pool.set(key, entry);
    entry.client
      .then((client) => {
        client.onclose = () => drop(key, entry);
      })
      .catch(() => drop(key, entry));
    return { key, entry };
  };

  /** Runs a request on a pooled client; a failure other than an upstream JSON-RPC error drops the client. */
  const run = async <T>(connector: ConnectorRow, headers: Record<string, string>, work: (client: Client) => Promise<T>): Promise<T> => {
    const { key, entry } = lease(connector, headers);
    entry.busy += 1;
    try {
      return await work(await entry.client);
    } catch (error) {
      if (!(error instanceof McpError) || error.code === -32001) drop(key, entry);
      throw error;
    } finally {
      entry.busy -= 1;
    }
  };

  const listOnce = (connector: ConnectorRow, headers: Record<string, string>) =>
    run(connector, headers, async (client) => {
      const tools: UpstreamTool[] = [];
      let cursor: string | undefined;
      do {
        const page = await client.request({ method: 'tools/list', params: cursor === undefined ? {} : { cursor } }, ResultSchema, { timeout: listTimeoutMs, maxTotalTimeout: listTimeoutMs });
        const listed = (page as { tools?: unknown }).tools;
        if (!Array.isArray(listed)) throw new Error('the upstream tools/list answer has no tools array');
        for (const tool of listed as UpstreamTool[]) if (typeof tool.name === 'string') tools.push(tool);
        const next = (page as { nextCursor?: unknown }).nextCursor;
        cursor = typeof next === 'string' && next !== '' ? next : undefined;
      } while (cursor !== undefined);
      return tools;
    });

  let forwarded = 0;
  /** A call over a Streamable HTTP session is forwarded on it without the SDK client (its ids never meet the client's numbers). */
  const callOn = (client: Client, connector: ConnectorRow, headers: Record<string, string>, params: Record<string, unknown>): Promise<UpstreamResult> => {
    const { transport } = client;
    if (!(transport instanceof StreamableHTTPClientTransport)) return client.request({ method: 'tools/call', params }, ResultSchema, { timeout: callTimeoutMs, maxTotalTimeout: callTimeoutMs });
    forwarded += 1;
    const session = { endpoint: connector.endpoint, headers, sessionId: transport.sessionId, protocolVersion: transport.protocolVersion, dispatcher: transports.dispatcher(connector.allow_private_ips) };
    return forwardRequest(session, `toolyard-${String(forwarded)}`, 'tools/call', params, callTimeoutMs);
  };

  return {
    async listTools(connector, headers) {
      try {
        return await listOnce(connector, headers);
      } catch (error) {
        if (error instanceof McpError) throw error;
        // a pooled session the upstream forgot (a restart): once more on a new one
        logger.debug({ connector: connector.id, err: error }, 'tools/list failed; trying a new upstream session');
        return listOnce(connector, headers);
      }
    },
    callTool(connector, headers, params) {
      return run(connector, headers, (client) => callOn(client, connector, headers, params));
    },
    retire(current) {
      for (const [key, entry] of pool) {
        const connector = current.get(entry.connectorId);
        if (!connector || versionOf(connector) !== entry.version) drop(key, entry);
      }
    },
    async close() {
      clearInterval(sweep);
      const entries = [...pool.values()];
      pool.clear();
      await Promise.all(entries.map((entry) => entry.client.then((client) => client.close()).catch(() => undefined)));
    },
  };
}
