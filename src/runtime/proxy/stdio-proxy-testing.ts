import { createRequire } from 'node:module';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CreateMessageRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type { ProxyMode } from '../workloads/schemas.js';
import type { StdioServerCommand } from './stdio-child.js';
import { createStdioProxy } from './stdio-proxy.js';
import type { ProxyPolicy, WorkloadProxy } from './types.js';

const require = createRequire(import.meta.url);

export const MODES: readonly ProxyMode[] = ['streamable-http', 'sse'];

export const everythingServer: StdioServerCommand = {
  command: process.execPath,
  args: [require.resolve('@modelcontextprotocol/server-everything/dist/index.js'), 'stdio'],
  env: {},
};

export const memoryServer = (file: string): StdioServerCommand => ({
  command: process.execPath,
  args: [require.resolve('@modelcontextprotocol/server-memory/dist/index.js')],
  env: { MEMORY_FILE_PATH: file },
});

export const openPolicy: ProxyPolicy = {
  toolsFilter: [],
  toolsOverride: {},
  rateLimit: null,
  maxBodyBytes: 1024 * 1024,
  readTimeoutMs: 30_000,
  sessionTtlMs: 3_600_000,
};

export interface Running {
  proxy: WorkloadProxy;
  /** The client endpoint: /mcp or /sse. */
  url: string;
  base: string;
  /** Every SDK client connected through connect(), closed by stop(). */
  clients: Client[];
  /** Connects an SDK client that answers sampling requests with `sampled by <name>`. */
  connect: (name: string) => Promise<Client>;
  /** Closes the SDK clients, leaving the proxy running. */
  disconnect: () => Promise<void>;
  stop: () => Promise<void>;
}

export async function startProxy(
  mode: ProxyMode,
  options: { server?: StdioServerCommand; policy?: Partial<ProxyPolicy> } = {},
): Promise<Running> {
  const proxy = createStdioProxy({
    target: { kind: 'stdio', command: options.server ?? everythingServer },
    mode,
    policy: { ...openPolicy, ...options.policy },
    log: () => undefined,
    onServerOutput: () => undefined,
  });
  const { url } = await proxy.listen(0, '127.0.0.1');
  const clients: Client[] = [];
  const disconnect = async (): Promise<void> => {
    for (const client of clients.splice(0)) await client.close().catch(() => undefined);
  };
  return {
    proxy,
    url,
    base: new URL(url).origin,
    clients,
    connect: async (name) => {
      const client = new Client({ name, version: '1.0.0' }, { capabilities: { sampling: {} } });
      client.setRequestHandler(CreateMessageRequestSchema, () => ({
        role: 'assistant',
        content: { type: 'text', text: `sampled by ${name}` },
        model: 'test-model',
      }));
      // eslint-disable-next-line @typescript-eslint/no-deprecated -- proxy_mode sse serves clients that still speak HTTP+SSE
      const transport = mode === 'sse' ? new SSEClientTransport(new URL(url)) : new StreamableHTTPClientTransport(new URL(url));
      await client.connect(transport);
      clients.push(client);
      return client;
    },
    disconnect,
    stop: async () => {
      await disconnect();
      await proxy.close();
    },
  };
}

export function textOf(result: unknown): string {
  const content = (result as { content: { type: string; text?: string }[] }).content;
  return content.map((c) => c.text ?? '').join('');
}

/** A client session driven by hand, to see HTTP statuses and headers that the SDK hides. */
export interface RawSession {
  post: (body: string) => Promise<Response>;
  /** SSE mode: settles when the proxy ends the session's stream. */
  ended: Promise<void>;
  /** Ends the session as a client would: DELETE, or closing the SSE stream. */
  close: () => Promise<void>;
}

const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
});
const POST_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

export async function rawSession(mode: ProxyMode, url: string): Promise<RawSession> {
  if (mode === 'streamable-http') {
    const res = await fetch(url, { method: 'POST', headers: POST_HEADERS, body: INITIALIZE });
    await res.text();
    const id = res.headers.get('mcp-session-id') ?? '';
    return {
      post: (body) => fetch(url, { method: 'POST', headers: { ...POST_HEADERS, 'mcp-session-id': id }, body }),
      ended: Promise.resolve(),
      close: async () => {
        await fetch(url, { method: 'DELETE', headers: { 'mcp-session-id': id } });
      },
    };
  }
  const abort = new AbortController();
  const res = await fetch(url, { headers: { accept: 'text/event-stream' }, signal: abort.signal });
  if (res.body === null) throw new Error('no event stream');
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  let endpoint: string | undefined;
  while (endpoint === undefined) {
    const { value, done } = await reader.read();
    if (done) throw new Error('stream ended before the endpoint event');
    buffer += value;
    endpoint = /event: endpoint\ndata: (.+)\n/.exec(buffer)?.[1];
  }
  const target = new URL(endpoint, url);
  const post = (body: string): Promise<Response> => fetch(target, { method: 'POST', headers: POST_HEADERS, body });
  const ended = (async () => {
    try {
      while (!(await reader.read()).done);
    } catch {
      // aborted by close()
    }
  })();
  await (await post(INITIALIZE)).text();
  return {
    post,
    ended,
    close: async () => {
      abort.abort();
      await ended;
    },
  };
}

export const toolCall = (name: string, args: Record<string, unknown>, id = 1): string =>
  JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });
