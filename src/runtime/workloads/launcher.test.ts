import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../core/clock.js';
import { createSupervisorControl, supervisorCommand } from './launcher.js';
import { createProcessIdentities } from './process-identity.js';
import type { StatusRecord } from './schemas.js';
import type { SupervisorControl } from './supervision.js';
import { freePort, tempRuntime, testRunConfig, type TempRuntime } from './supervisor-testing.js';

const identities = createProcessIdentities();
const require = createRequire(import.meta.url);

async function echoThrough(port: number, message: string): Promise<string> {
  const client = new Client({ name: 'test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${String(port)}/mcp`)));
  try {
    const result = (await client.callTool({ name: 'echo', arguments: { message } })) as { content: { text?: string }[] };
    return result.content.map((c) => c.text ?? '').join('');
  } finally {
    await client.close();
  }
}

/** The session id (field 6 of /proc/<pid>/stat). */
async function sessionOf(pid: number): Promise<string | undefined> {
  const text = await readFile(`/proc/${String(pid)}/stat`, 'utf8');
  return text.slice(text.lastIndexOf(')') + 2).split(' ')[3];
}

describe('supervisor control', () => {
  let runtime: TempRuntime;
  let control: SupervisorControl;
  const started: string[] = [];

  beforeEach(async () => {
    runtime = await tempRuntime();
    control = createSupervisorControl({ store: runtime.store, clock: systemClock, env: runtime.env });
  });

  afterEach(async () => {
    for (const name of started.splice(0)) await control.stop(name, await runtime.store.readStatus(name));
    await runtime.cleanup();
  });

  const start = async (name: string, port: number, overrides: Parameters<typeof testRunConfig>[2] = {}): Promise<StatusRecord> => {
    await runtime.store.writeConfig(testRunConfig(name, port, overrides));
    started.push(name);
    await control.start(name);
    const record = await runtime.store.readStatus(name);
    if (record === undefined) throw new Error('no status after start');
    return record;
  };

  it('starts a detached supervisor that serves the workload, then stops it and its server', async () => {
    const port = await freePort();
    const record = await start('everything', port);
    expect(record.status).toBe('running');
    const supervisorPid = record.supervisor?.pid ?? 0;
    expect(supervisorPid).not.toBe(process.pid);
    // Its own session: a terminal hang-up or the starter's process group being killed does not reach it.
    expect(await sessionOf(supervisorPid)).toBe(String(supervisorPid));
    expect(await control.alive(record)).toEqual({ supervisor: true, server: true });
    expect(await echoThrough(port, 'detached')).toContain('detached');
    await expect(control.start('everything')).rejects.toThrow(/already running/);

    await control.stop('everything', record);
    expect((await runtime.store.readStatus('everything'))?.status).toBe('stopped');
    expect(await control.alive(record)).toEqual({ supervisor: false, server: false });
  });

  it('rejects start with the reason the server did not start', async () => {
    await runtime.store.writeConfig(
      testRunConfig('broken', await freePort(), {
        command: { command: process.execPath, args: ['-e', 'process.exit(4)'], cwd: '', env: {} },
      }),
    );
    await expect(control.start('broken')).rejects.toThrow(/broken failed to start: server exited with code 4 while starting/);
    expect((await runtime.store.readStatus('broken'))?.status).toBe('error');
  });

  it('neither reports as alive nor kills processes whose start time does not match the record', async () => {
    const bystander = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
    try {
      const bystanderIdentity = await identities.identify(bystander.pid ?? 0);
      const self = await identities.identify(process.pid);
      const stale: StatusRecord = {
        status: 'running',
        status_context: '',
        started_at: '2026-01-01T00:00:00.000Z',
        supervisor: { pid: process.pid, start_time: `${self?.start_time ?? '0'}1` },
        server: { pid: bystander.pid ?? 0, start_time: '1' },
        restarts: 0,
        updated_at: '2026-01-01T00:00:00.000Z',
      };
      expect(await control.alive(stale)).toEqual({ supervisor: false, server: false });
      await control.stop('stale', stale);
      expect(await identities.isAlive(bystanderIdentity)).toBe(true);
      expect(await identities.isAlive(self)).toBe(true);
    } finally {
      bystander.kill('SIGKILL');
    }
  });

  it('keeps the workload running after the process group that started it is killed', async () => {
    const port = await freePort();
    await runtime.store.writeConfig(testRunConfig('orphan', port));
    started.push('orphan');
    const module = (file: string): string => pathToFileURL(require.resolve(file)).href;
    const script = [
      `import { createSupervisorControl } from '${module('./launcher.ts')}';`,
      `import { createWorkloadStore } from '${module('./store.ts')}';`,
      `import { runtimePaths } from '${module('../paths.ts')}';`,
      'const store = createWorkloadStore(runtimePaths(process.env));',
      'await createSupervisorControl({ store, clock: { now: () => new Date() }, env: process.env }).start(process.argv[1]);',
      "process.stdout.write('started\\n');",
      'setInterval(() => undefined, 60_000);',
    ].join('\n');
    // The starter leads its own process group, like a CLI in a terminal that gets Ctrl-C.
    const starter = spawn(process.execPath, ['--input-type=module', '-e', script, 'orphan'], {
      env: runtime.env,
      stdio: ['ignore', 'pipe', 'inherit'],
      detached: true,
    });
    const exited = new Promise((resolve) => starter.once('exit', (_code, sig) => resolve(sig)));
    await new Promise<void>((resolve) => starter.stdout.once('data', () => resolve()));
    process.kill(-(starter.pid ?? 0), 'SIGKILL');
    expect(await exited).toBe('SIGKILL');

    const record = await runtime.store.readStatus('orphan');
    expect(record?.status).toBe('running');
    expect(record === undefined ? undefined : await control.alive(record)).toEqual({ supervisor: true, server: true });
    expect(await echoThrough(port, 'still here')).toContain('still here');
  });

  it('runs the entry file beside it in its own form, compiled in dist, with no loader of its own', () => {
    expect(supervisorCommand('w', 'file:///opt/toolyard/dist/runtime/workloads/launcher.js')).toEqual({
      command: process.execPath,
      args: ['/opt/toolyard/dist/runtime/workloads/supervisor-main.js', 'w'],
    });
    expect(supervisorCommand('w', import.meta.url)).toEqual({ command: process.execPath, args: [require.resolve('./supervisor-main.ts'), 'w'] });
  });
});
