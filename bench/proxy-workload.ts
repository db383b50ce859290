/**
 * The workload part of bench/proxy.ts: how long `create` takes until the workload is `running` for a
 * package already on disk (an npx:// local directory runs in place, exactly like a cached npm install:
 * node runs the package's bin), and the resident memory of its supervisor after 2,000 tool calls.
 * It uses the compiled library from dist/ (bench:proxy builds first), so the supervisor is the
 * process users run, not one under tsx.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import pino from 'pino';

interface RuntimeServicesModule {
  createRuntimeServices: (options: {
    paths: unknown;
    env: Record<string, string | undefined>;
    logger: pino.Logger;
    cwd: string;
  }) => {
    workloads: {
      create: (request: { name: string; image: string; cmd_arguments: string[] }) => Promise<{ name: string; port: number }>;
      status: (name: string) => Promise<{ status: string; status_context: string }>;
      remove: (names: string[]) => Promise<{ done: Promise<void> }>;
    };
    store: { readStatus: (name: string) => Promise<{ supervisor?: { pid: number } | undefined } | undefined> };
  };
}
interface PathsModule {
  runtimePaths: (env: Record<string, string | undefined>) => unknown;
}

const STARTS = 5;
const CALLS = 2000;
const EVERYTHING_DIR = dirname(dirname(createRequire(import.meta.url).resolve('@modelcontextprotocol/server-everything/dist/index.js')));

export interface WorkloadFigures {
  createToRunningMs: { runs: number[]; median: number };
  supervisorRssMiB: number;
}

async function rssMiB(pid: number): Promise<number> {
  const status = await readFile(`/proc/${String(pid)}/status`, 'utf8');
  const kib = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 'NaN');
  return Math.round((kib / 1024) * 10) / 10;
}

export async function measureWorkloads(): Promise<WorkloadFigures> {
  const dist = new URL('../dist/runtime/', import.meta.url);
  const { createRuntimeServices } = (await import(new URL('services.js', dist).href)) as RuntimeServicesModule;
  const { runtimePaths } = (await import(new URL('paths.js', dist).href)) as PathsModule;
  const root = await mkdtemp(join(tmpdir(), 'toolyard-bench-'));
  const env = { ...process.env, XDG_STATE_HOME: join(root, 'state'), XDG_DATA_HOME: join(root, 'data'), XDG_CACHE_HOME: join(root, 'cache'), XDG_CONFIG_HOME: join(root, 'config') };
  const { workloads, store } = createRuntimeServices({ paths: runtimePaths(env), env, logger: pino({ level: 'silent' }), cwd: root });
  const names: string[] = [];
  try {
    const runs: number[] = [];
    let port = 0;
    for (let i = 0; i < STARTS; i += 1) {
      const name = `bench-${String(i)}`;
      const started = performance.now();
      ({ port } = await workloads.create({ name, image: `npx://${EVERYTHING_DIR}`, cmd_arguments: ['stdio'] }));
      names.push(name);
      const { status, status_context } = await workloads.status(name);
      if (status !== 'running') throw new Error(`workload ${name} is ${status}: ${status_context}`);
      runs.push(Math.round(performance.now() - started));
    }
    const client = new Client({ name: 'bench', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${String(port)}/mcp`)));
    for (let i = 0; i < CALLS; i += 1) await client.callTool({ name: 'echo', arguments: { message: `m${String(i)}` } });
    await client.close();
    const pid = (await store.readStatus(names.at(-1) ?? ''))?.supervisor?.pid;
    if (pid === undefined) throw new Error('the supervisor recorded no pid');
    const sorted = [...runs].sort((a, b) => a - b);
    return { createToRunningMs: { runs, median: sorted[Math.floor(sorted.length / 2)] ?? 0 }, supervisorRssMiB: await rssMiB(pid) };
  } finally {
    if (names.length > 0) await (await workloads.remove(names)).done;
    await rm(root, { recursive: true, force: true });
  }
}
