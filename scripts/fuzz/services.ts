import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from '../../src/core/net/free-port.js';

const ROOT = new URL('../../', import.meta.url).pathname;
const CLI = join(ROOT, 'src/cli/main.ts');

/** A service started from source as `toolyard` would run it, on a port of its own and temporary directories. */
export interface RunningService {
  name: 'registry' | 'runtime';
  port: number;
  /** Everything the service wrote to stdout and stderr (its JSON log lines). */
  log: () => string;
  /** Processes (other than the service itself) whose environment names this service's temporary directory. */
  processes: () => Promise<{ pid: number; command: string }[]>;
  stop: () => Promise<void>;
}

function spawnToolyard(args: string[], env: Record<string, string>): ChildProcess & { log: () => string } {
  const child = spawn(process.execPath, ['--import', 'tsx', CLI, ...args], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return Object.assign(child, { log: () => output });
}

/** How long a service may take to start: PGlite's first start and migrations are slow on a busy 2-core machine. */
const START_TIMEOUT_MS = 180_000;

async function waitHealthy(port: number, child: ChildProcess & { log: () => string }): Promise<void> {
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`the service exited with code ${String(child.exitCode)}:\n${child.log()}`);
    try {
      if ((await fetch(`http://127.0.0.1:${String(port)}/health`)).ok) return;
    } catch {
      // not listening yet
    }
    await sleep(200);
  }
  throw new Error(`the service did not answer /health within ${String(START_TIMEOUT_MS / 1000)} s:\n${child.log()}`);
}

/**
 * The esbuild service that tsx starts inside the service's own process tree to compile it from source: it
 * belongs to this way of starting the service (a built `toolyard` has none), not to any workload.
 */
async function isSourceLoaderOf(service: number | undefined, pid: number, command: string): Promise<boolean> {
  if (!/@esbuild\/.*--service/.test(command)) return false;
  const stat = await readFile(`/proc/${String(pid)}/stat`, 'utf8').catch(() => '');
  const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  return parent === service;
}

/** Live processes whose environment holds `marker` (Linux /proc; none elsewhere). */
async function processesMarked(marker: string, except: number | undefined): Promise<{ pid: number; command: string }[]> {
  const entries = await readdir('/proc').catch(() => [] as string[]);
  const found: { pid: number; command: string }[] = [];
  for (const entry of entries) {
    const pid = Number(entry);
    if (!Number.isInteger(pid) || pid === except) continue;
    const environ = await readFile(`/proc/${entry}/environ`, 'latin1').catch(() => '');
    if (!environ.split('\0').includes(marker)) continue;
    const command = (await readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '')).split('\0').join(' ').trim();
    if (await isSourceLoaderOf(except, pid, command)) continue;
    found.push({ pid, command });
  }
  return found;
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<boolean>((resolve) => child.once('exit', () => resolve(true)));
  child.kill('SIGTERM');
  if (!(await Promise.race([exited, sleep(10_000, false)]))) child.kill('SIGKILL');
}

async function start(name: RunningService['name'], args: string[], env: Record<string, string>, dir: string, marker: string): Promise<RunningService> {
  const port = await freePort();
  const child = spawnToolyard([...args, '--address', `127.0.0.1:${String(port)}`], env);
  try {
    await waitHealthy(port, child);
  } catch (error) {
    await stopChild(child);
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
  return {
    name,
    port,
    log: child.log,
    processes: () => processesMarked(marker, child.pid),
    stop: async () => {
      await stopChild(child);
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** The registry server with the example configuration (anonymous mode), its database in a temporary directory. */
export async function startRegistry(): Promise<RunningService> {
  const dir = await mkdtemp(join(tmpdir(), 'toolyard-fuzz-registry-'));
  const env = { PATH: process.env.PATH ?? '', HOME: dir, TOOLYARD_REGISTRY_DATABASE_DATA_DIR: join(dir, 'db'), TOOLYARD_REGISTRY_AUTH_MODE: 'anonymous' };
  return start('registry', ['registry', 'serve', '--config', join(ROOT, 'examples/registry.yaml')], env, dir, `HOME=${dir}`);
}

/** The local runtime API with HOME and every XDG directory temporary, so it touches nothing of the user's. */
export async function startRuntime(): Promise<RunningService> {
  const dir = await mkdtemp(join(tmpdir(), 'toolyard-fuzz-runtime-'));
  const env = {
    PATH: process.env.PATH ?? '',
    HOME: join(dir, 'home'),
    XDG_CONFIG_HOME: join(dir, 'config'),
    XDG_STATE_HOME: join(dir, 'state'),
    XDG_DATA_HOME: join(dir, 'data'),
    XDG_CACHE_HOME: join(dir, 'cache'),
  };
  return start('runtime', ['runtime', 'serve'], env, dir, `XDG_STATE_HOME=${env.XDG_STATE_HOME}`);
}
