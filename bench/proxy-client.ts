/**
 * The load generator of bench/proxy.ts, run in its own process so that it never shares an event loop
 * with the proxy under test: `node --import tsx bench/proxy-client.ts '<json options>'` with an IPC
 * channel (bench/proxy-ipc.ts). It connects two groups of official SDK clients to one target (each
 * client its own transport and session; over stdio each spawns its own server), then runs slices on
 * request: every client of a group makes its calls one after the other while the group's other clients
 * make theirs, and each `tools/call` of the echo tool is timed. It ends its sessions when the channel closes.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { setMaxListeners } from 'node:events';
import { performance } from 'node:perf_hooks';

export type ClientTarget =
  | { kind: 'stdio'; command: string; args: string[]; tool?: string }
  /** `headers` go with every request (a gateway's credential); `tool` names the echo tool where it is prefixed. */
  | { kind: 'http'; url: string; headers?: Record<string, string>; tool?: string };

export type Group = 'sequential' | 'concurrent';

export interface ClientOptions {
  target: ClientTarget;
  /** How many clients each group connects. */
  clients: Record<Group, number>;
}

export interface ClientReady {
  connected: number;
}

/** One slice of a group's calls: every client of the group makes its calls while the others make theirs. */
export interface ClientRequest {
  group: Group;
  /** Per client, not timed. */
  warmupCalls: number;
  /** Per client, timed. */
  calls: number;
}

export interface ClientSlice {
  /** Of every timed call, in ms. */
  latencies: number[];
  /** From the first timed call to the last answer. */
  elapsedMs: number;
  /** Calls that threw or did not echo their message back, warm-up included. */
  errors: number;
}

interface Connected {
  client: Client;
  close: () => Promise<void>;
}

async function connect(target: ClientTarget): Promise<Connected> {
  const client = new Client({ name: 'toolyard-bench', version: '1.0.0' });
  if (target.kind === 'stdio') {
    await client.connect(new StdioClientTransport({ command: target.command, args: target.args, stderr: 'ignore' }));
    return { client, close: () => client.close() };
  }
  const transport = new StreamableHTTPClientTransport(new URL(target.url), { requestInit: { headers: target.headers ?? {} } });
  await client.connect(transport);
  return {
    client,
    close: async () => {
      await transport.terminateSession();
      await client.close();
    },
  };
}

async function echoes(client: Client, tool: string, message: string): Promise<boolean> {
  try {
    const result = await client.callTool({ name: tool, arguments: { message } });
    const content: unknown = result.content;
    if (!Array.isArray(content)) return false;
    const first: unknown = content[0];
    return typeof first === 'object' && first !== null && 'text' in first && first.text === `Echo: ${message}`;
  } catch {
    return false;
  }
}

/** Makes `calls` calls one after the other; records each latency when `latencies` is given. */
async function drive(client: Client, tool: string, calls: number, latencies: number[] | undefined): Promise<number> {
  let errors = 0;
  for (let i = 0; i < calls; i++) {
    const started = performance.now();
    const ok = await echoes(client, tool, `bench-${i}`);
    latencies?.push(performance.now() - started);
    if (!ok) errors++;
  }
  return errors;
}

async function slice(group: Connected[], tool: string, request: ClientRequest): Promise<ClientSlice> {
  const warmupErrors = await Promise.all(group.map(({ client }) => drive(client, tool, request.warmupCalls, undefined)));
  const latencies: number[] = [];
  const started = performance.now();
  const errors = await Promise.all(group.map(({ client }) => drive(client, tool, request.calls, latencies)));
  return {
    latencies,
    elapsedMs: performance.now() - started,
    errors: [...warmupErrors, ...errors].reduce((sum, count) => sum + count, 0),
  };
}

async function main(): Promise<void> {
  // Every fetch of an HTTP transport adds an abort listener to the transport's one signal and undici
  // removes it only when the request is collected: thousands of calls would print thousands of warnings
  // (and time them). Applies to the signals created from here on.
  setMaxListeners(0);
  const send = process.send?.bind(process);
  if (send === undefined) throw new Error('bench/proxy-client.ts must be started with an IPC channel');
  const options = JSON.parse(process.argv[2] ?? '{}') as ClientOptions;
  const groups: Record<Group, Connected[]> = { sequential: [], concurrent: [] };
  // one by one, so that no server sees a storm of sessions starting
  for (const group of ['sequential', 'concurrent'] as const) {
    for (let i = 0; i < options.clients[group]; i++) groups[group].push(await connect(options.target));
  }
  process.on('message', (request: ClientRequest) => {
    void slice(groups[request.group], options.target.tool ?? 'echo', request).then((answer) => send(answer));
  });
  process.once('disconnect', () => {
    void Promise.all([...groups.sequential, ...groups.concurrent].map(({ close }) => close()));
  });
  const ready: ClientReady = { connected: groups.sequential.length + groups.concurrent.length };
  send(ready);
}

await main();
