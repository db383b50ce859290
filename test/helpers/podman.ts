import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { access, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
export const RUNC = '/usr/sbin/runc';

/**
 * A private Podman service serving the Docker Engine API on a socket of its own, as root, with every
 * directory it writes (images, containers, its run state, events) under one temp directory, so tests
 * never touch the machine's own Podman storage. The settings are those that let Debian's Podman run
 * on these machines: no default ulimits, no network namespace set up by default, cgroupfs.
 */
export interface PodmanService {
  socketPath: string;
  /** `unix://<socket>`, for DOCKER_HOST. */
  dockerHost: string;
  /** Runs the podman command on the same storage (import, push, inspect); resolves with its stdout. */
  cli: (args: string[]) => Promise<string>;
  /** Removes every container, stops the service and deletes its directories. */
  stop: () => Promise<void>;
}

export type PodmanStart = { podman: PodmanService; reason?: undefined } | { podman?: undefined; reason: string };

export interface PodmanOptions {
  /** Registries reached over plain HTTP (`127.0.0.1:5000`): a local test registry has no TLS. */
  insecureRegistries?: string[];
  /** How long the service may take to answer /_ping. */
  timeoutMs?: number;
}

const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

function ping(socketPath: string): Promise<boolean> {
  return new Promise((resolve) => {
    const req = request({ socketPath, path: '/_ping', headers: { host: 'docker' }, timeout: 1000 }, (response) => {
      response.resume();
      resolve(response.statusCode === 200);
    });
    req.once('timeout', () => req.destroy());
    req.once('error', () => resolve(false));
    req.end();
  });
}

async function available(): Promise<string | undefined> {
  if (process.platform !== 'linux') return `containers need Linux, this is ${process.platform}`;
  if (process.getuid?.() !== 0) return 'the tests run Podman as root, and this user is not root';
  try {
    await run('podman', ['--version']);
  } catch {
    return 'podman is not installed (scripts/install-test-tools.sh installs it)';
  }
  try {
    await access(RUNC);
  } catch {
    return `${RUNC} is not installed (scripts/install-test-tools.sh installs runc)`;
  }
  return undefined;
}

function configFiles(dir: string, insecure: readonly string[]): Record<string, string> {
  const quoted = (path: string): string => JSON.stringify(path);
  return {
    'containers.conf': [
      '[containers]',
      'default_ulimits = []',
      'netns = "none"',
      '[engine]',
      'cgroup_manager = "cgroupfs"',
      'events_logger = "file"',
      `events_logfile_path = ${quoted(join(dir, 'events.log'))}`,
      `tmp_dir = ${quoted(join(dir, 'tmp'))}`,
      `volume_path = ${quoted(join(dir, 'volumes'))}`,
      '',
    ].join('\n'),
    // vfs: plain directories, nothing mounted that could outlive the service
    'storage.conf': ['[storage]', 'driver = "vfs"', `graphroot = ${quoted(join(dir, 'root'))}`, `runroot = ${quoted(join(dir, 'runroot'))}`, ''].join('\n'),
    // short names never go to a public registry: these tests have no network beyond the machine
    'registries.conf': ['unqualified-search-registries = []', ...insecure.flatMap((location) => ['[[registry]]', `location = ${quoted(location)}`, 'insecure = true']), ''].join(
      '\n',
    ),
  };
}

/** Starts the service, or says why it cannot run here (never throws). */
export async function startPodman(options: PodmanOptions = {}): Promise<PodmanStart> {
  const missing = await available();
  if (missing !== undefined) return { reason: missing };
  const dir = await mkdtemp(join(tmpdir(), 'toolyard-podman-'));
  await mkdir(join(dir, 'tmp'));
  const files = configFiles(dir, options.insecureRegistries ?? []);
  for (const [name, text] of Object.entries(files)) await writeFile(join(dir, name), text);
  const env = {
    ...process.env,
    CONTAINERS_CONF: join(dir, 'containers.conf'),
    CONTAINERS_STORAGE_CONF: join(dir, 'storage.conf'),
    CONTAINERS_REGISTRIES_CONF: join(dir, 'registries.conf'),
  };
  const socketPath = join(dir, 'engine.sock');
  let output = '';
  const service: ChildProcess = spawn('podman', ['--runtime', RUNC, 'system', 'service', '--time=0', `unix://${socketPath}`], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  service.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  service.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => service.once('exit', () => resolve()));
  const cli = async (args: string[]): Promise<string> => (await run('podman', ['--runtime', RUNC, ...args], { env, maxBuffer: 16 * 1024 * 1024 })).stdout;
  const stop = async (): Promise<void> => {
    await cli(['rm', '--all', '--force', '--time', '0']).catch(() => undefined);
    if (service.exitCode === null) service.kill('SIGTERM');
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5000).unref())]);
    if (service.exitCode === null) service.kill('SIGKILL');
    await rm(dir, { recursive: true, force: true });
  };

  const deadline = Date.now() + (options.timeoutMs ?? 10_000);
  while (Date.now() < deadline && service.exitCode === null) {
    if (await ping(socketPath)) return { podman: { socketPath, dockerHost: `unix://${socketPath}`, cli, stop } };
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const why = service.exitCode === null ? `podman system service did not answer /_ping within ${String(options.timeoutMs ?? 10_000)} ms` : 'podman system service exited';
  await stop().catch((error: unknown) => (output += messageOf(error)));
  const detail = output.trim().split('\n').slice(-1)[0] ?? '';
  return { reason: detail === '' ? why : `${why}: ${detail}` };
}
