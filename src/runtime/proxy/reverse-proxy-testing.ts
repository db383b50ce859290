import { spawn } from 'node:child_process';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { freePort } from '../../core/net/free-port.js';
import { createReverseProxy } from './reverse-proxy.js';
import type { ProxyPolicy, WorkloadProxy } from './types.js';

export { freePort };

/** Test helpers for the reverse proxy: real upstream servers on free local ports. */

const require = createRequire(import.meta.url);
const everythingEntry = require.resolve('@modelcontextprotocol/server-everything/dist/index.js');

export const testPolicy = (overrides: Partial<ProxyPolicy> = {}): ProxyPolicy => ({
  toolsFilter: [],
  toolsOverride: {},
  rateLimit: null,
  maxBodyBytes: 1024 * 1024,
  readTimeoutMs: 10_000,
  sessionTtlMs: 60_000,
  ...overrides,
});


export interface RunningUpstream {
  port: number;
  stop: () => Promise<void>;
}

/** server-everything as a local HTTP server, ready once it says it listens. */
export async function startEverything(mode: 'sse' | 'streamableHttp'): Promise<RunningUpstream> {
  const port = await freePort();
  const child = spawn(process.execPath, [everythingEntry, mode], {
    env: { ...process.env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    let output = '';
    const onData = (chunk: Buffer): void => {
      output += chunk.toString('utf8');
      if (!/listening on port|running on port/i.test(output)) return;
      // what it logs per request from now on is read and dropped: kept, it would be searched again at every chunk
      child.stdout.off('data', onData).resume();
      child.stderr.off('data', onData).resume();
      resolve();
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => reject(new Error(`server-everything ${mode} exited with ${String(code)}: ${output}`)));
  });
  return {
    port,
    stop: async () => {
      child.kill();
      await exited;
    },
  };
}

/** The two transports server-everything serves over HTTP: how the proxy names each, how the server does, and its path. */
export const EVERYTHING_TRANSPORTS = [
  { transport: 'streamable-http' as const, mode: 'streamableHttp' as const, upstreamPath: '/mcp' },
  { transport: 'sse' as const, mode: 'sse' as const, upstreamPath: '/sse' },
];

export interface ProxiedEverything {
  upstream: RunningUpstream;
  proxy: WorkloadProxy;
  /** The proxy's client endpoint. */
  url: string;
  stop: () => Promise<void>;
}

/** server-everything over one HTTP transport with the reverse proxy in front of it. */
export async function proxyInFrontOfEverything(
  { transport, mode, upstreamPath }: (typeof EVERYTHING_TRANSPORTS)[number],
  policy: ProxyPolicy,
  log: (line: string) => void = () => undefined,
): Promise<ProxiedEverything> {
  const upstream = await startEverything(mode);
  const proxy = createReverseProxy({
    target: { kind: 'http', url: `http://127.0.0.1:${String(upstream.port)}${upstreamPath}`, transport },
    mode: transport,
    policy,
    log,
  });
  const { url } = await proxy.listen(0, '127.0.0.1');
  return {
    upstream,
    proxy,
    url,
    stop: async () => {
      await proxy.close();
      await upstream.stop();
    },
  };
}

/** A tiny node:http upstream driven by the test's handler. */
export async function startUpstream(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<RunningUpstream> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

export function readRequestBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}
