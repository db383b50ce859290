/**
 * Hosts one HTTP side of bench/proxy.ts in its own process, so that it never shares an event loop with
 * the load generator and its memory is its own: `node --import tsx bench/proxy-host.ts '<json options>'`
 * with an IPC channel (bench/proxy-ipc.ts). It serves the HTTP floor, Toolyard's stdio proxy in front of the
 * given server, or the runtime's reverse proxy in front of a remote MCP server (bench/connector-gateway.ts),
 * reports its endpoint, answers memory questions and closes with the channel.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ProxyPolicy } from '../src/runtime/proxy/types.js';
import type { StdioServerCommand } from '../src/runtime/proxy/stdio-child.js';
// Toolyard's proxy under test: this import is the one line to change to measure another factory with
// the same (options: WorkloadProxyOptions) => WorkloadProxy signature.
import { createStdioProxy as createToolyardProxy } from '../src/runtime/proxy/stdio-proxy.js';
import { createReverseProxy } from '../src/runtime/proxy/reverse-proxy.js';
import { createFloorServer } from './proxy-floor.js';

export type HostOptions = { kind: 'floor' } | { kind: 'toolyard'; server: StdioServerCommand } | { kind: 'reverse'; url: string };

/** The only question: the memory of this process, answered with a HostMemory. */
export interface HostRequest {
  type: 'memory';
}

export interface HostMemory {
  rssBytes: number;
  heapUsedBytes: number;
}

export interface HostReady {
  url: string;
  /** What serves the endpoint, so the report names the proxy it measured. */
  factory: string;
  memory: HostMemory;
}

/** Pass-through: no tool filter or override, no rate limit; the limits are generous defaults. */
const BENCH_POLICY: ProxyPolicy = {
  toolsFilter: [],
  toolsOverride: {},
  rateLimit: null,
  maxBodyBytes: 4 * 1024 * 1024,
  readTimeoutMs: 60_000,
  sessionTtlMs: 30 * 60_000,
};

interface Hosted {
  url: string;
  factory: string;
  close: () => Promise<void>;
}

function memory(): HostMemory {
  const { rss, heapUsed } = process.memoryUsage();
  return { rssBytes: rss, heapUsedBytes: heapUsed };
}

function listenFloor(server: Server): Promise<Hosted> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve({
        url: `http://127.0.0.1:${port}/mcp`,
        factory: createFloorServer.name,
        close: () =>
          new Promise((done) => {
            server.close(() => done());
            server.closeAllConnections();
          }),
      });
    });
  });
}

async function startToolyard(server: StdioServerCommand): Promise<Hosted> {
  const proxy = createToolyardProxy({
    target: { kind: 'stdio', command: server },
    mode: 'streamable-http',
    policy: BENCH_POLICY,
    // the bench measures the proxy, not a log sink
    log: () => undefined,
    onServerOutput: () => undefined,
  });
  const { port } = await proxy.listen(0, '127.0.0.1');
  return { url: `http://127.0.0.1:${port}/mcp`, factory: createToolyardProxy.name, close: () => proxy.close() };
}

async function startReverse(url: string): Promise<Hosted> {
  const proxy = createReverseProxy({ target: { kind: 'http', url, transport: 'streamable-http' }, mode: 'streamable-http', policy: BENCH_POLICY, log: () => undefined });
  const listening = await proxy.listen(0, '127.0.0.1');
  return { url: listening.url, factory: createReverseProxy.name, close: () => proxy.close() };
}

function host(options: HostOptions): Promise<Hosted> {
  if (options.kind === 'floor') return listenFloor(createFloorServer());
  return options.kind === 'toolyard' ? startToolyard(options.server) : startReverse(options.url);
}

async function main(): Promise<void> {
  const send = process.send?.bind(process);
  if (send === undefined) throw new Error('bench/proxy-host.ts must be started with an IPC channel');
  const options = JSON.parse(process.argv[2] ?? '{}') as HostOptions;
  const hosted = await host(options);
  process.on('message', (_request: HostRequest) => send(memory()));
  // the parent closing the channel is the signal to stop; the process then exits on its own
  process.once('disconnect', () => void hosted.close());
  const ready: HostReady = { url: hosted.url, factory: hosted.factory, memory: memory() };
  send(ready);
}

await main();
