import { execFile, spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import bcrypt from 'bcryptjs';
import { freePort } from '../../src/core/net/free-port.js';

const run = promisify(execFile);

/** Debian's `docker-registry` (the distribution registry) on a loopback port, storing under a temp directory. */
export interface LocalRegistry {
  /** `127.0.0.1:<port>`, the registry part of image references. */
  host: string;
  stop: () => Promise<void>;
}

export type LocalRegistryStart = { registry: LocalRegistry; reason?: undefined } | { registry?: undefined; reason: string };

export interface LocalRegistryOptions {
  timeoutMs?: number;
  /** Users and passwords the registry asks for with Basic authentication (its htpasswd backend, bcrypt only). */
  users?: Record<string, string>;
}

/** Starts the registry, or says why it cannot run here (never throws). */
export async function startLocalRegistry(options: LocalRegistryOptions = {}): Promise<LocalRegistryStart> {
  const timeoutMs = options.timeoutMs ?? 10_000;
  try {
    await run('docker-registry', ['--version']);
  } catch {
    return { reason: 'docker-registry is not installed (scripts/install-test-tools.sh installs it)' };
  }
  const dir = await mkdtemp(join(tmpdir(), 'toolyard-oci-registry-'));
  const host = `127.0.0.1:${String(await freePort())}`;
  const config = ['version: 0.1', 'log:', '  level: error', 'storage:', '  filesystem:', `    rootdirectory: ${join(dir, 'data')}`, 'http:', `  addr: ${host}`];
  if (options.users !== undefined) {
    // the lowest cost bcrypt allows: these passwords guard a registry that lives for one test
    const lines = Object.entries(options.users).map(([user, password]) => `${user}:${bcrypt.hashSync(password, 4)}`);
    await writeFile(join(dir, 'htpasswd'), `${lines.join('\n')}\n`);
    config.push('auth:', '  htpasswd:', '    realm: toolyard-test', `    path: ${join(dir, 'htpasswd')}`);
  }
  config.push('');
  await writeFile(join(dir, 'config.yml'), config.join('\n'));
  const child = spawn('docker-registry', ['serve', join(dir, 'config.yml')], { stdio: ['ignore', 'ignore', 'pipe'] });
  let output = '';
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async (): Promise<void> => {
    if (child.exitCode === null) child.kill('SIGTERM');
    await exited;
    await rm(dir, { recursive: true, force: true });
  };
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline && child.exitCode === null) {
    try {
      // 401 is an answer too: the registry is up and asks for a login
      const status = (await fetch(`http://${host}/v2/`)).status;
      if (status === 200 || status === 401) return { registry: { host, stop } };
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  await stop();
  return { reason: `docker-registry did not answer on ${host} within ${String(timeoutMs)} ms: ${output.trim().split('\n').slice(-1)[0] ?? ''}` };
}
