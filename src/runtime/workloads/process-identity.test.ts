import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createProcessIdentities } from './process-identity.js';

describe('process identities', () => {
  const identities = createProcessIdentities();
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0)) await cleanup();
  });

  it('proves a live process by pid and start time', async () => {
    const self = await identities.identify(process.pid);
    expect(self?.start_time).toMatch(/^\d+$/);
    expect(await identities.isAlive(self)).toBe(true);
  });

  it('does not take a recycled pid (same pid, other start time) for the recorded process', async () => {
    const self = await identities.identify(process.pid);
    expect(self).toBeDefined();
    const recycled = { pid: process.pid, start_time: String(Number(self?.start_time) + 1) };
    expect(await identities.isAlive(recycled)).toBe(false);
    expect(await identities.isAlive(undefined)).toBe(false);
  });

  it('reports a process that has exited as gone', async () => {
    const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
    const identity = await identities.identify(child.pid ?? 0);
    expect(await identities.isAlive(identity)).toBe(true);
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
    expect(await identities.isAlive(identity)).toBe(false);
    expect(await identities.identify(0)).toBeUndefined();
  });

  it('reads the start time after a command name with spaces and parentheses, and treats zombies as gone', async () => {
    const root = await mkdtemp(join(tmpdir(), 'toolyard-proc-'));
    cleanups.push(() => rm(root, { recursive: true, force: true }));
    const tail = (state: string): string => `${state} 1 42 42 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 987654 1000 10`;
    await mkdir(join(root, '42'));
    await writeFile(join(root, '42', 'stat'), `42 (node (x) y) ${tail('S')}\n`);
    await mkdir(join(root, '43'));
    await writeFile(join(root, '43', 'stat'), `43 (node) ${tail('Z')}\n`);
    const fake = createProcessIdentities({ procRoot: root });
    expect(await fake.identify(42)).toEqual({ pid: 42, start_time: '987654' });
    expect(await fake.identify(43)).toBeUndefined();
  });
});
