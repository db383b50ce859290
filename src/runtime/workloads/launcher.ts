import { spawn } from 'node:child_process';
import { dirname, extname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import type { Clock } from '../../core/clock.js';
import { ConflictError, UnavailableError } from '../../core/errors.js';
import { BrokenStateFileError } from '../state/files.js';
import { createProcessIdentities, type ProcessIdentities, type ProcessIdentity } from './process-identity.js';
import type { StatusRecord } from './schemas.js';
import type { WorkloadStore } from './store.js';
import type { SupervisorControl } from './supervision.js';

export interface SpawnCommand {
  command: string;
  args: string[];
}

/**
 * `node supervisor-main.js <name>`: the supervisor entry file beside `moduleUrl`, in the form that
 * module runs in (compiled in dist/). Sources run under a TypeScript loader, which the supervisor then
 * needs as well: whoever runs them gives it in NODE_OPTIONS of the supervisor's environment.
 */
export function supervisorCommand(name: string, moduleUrl: string = import.meta.url): SpawnCommand {
  const here = fileURLToPath(moduleUrl);
  return { command: process.execPath, args: [join(dirname(here), `supervisor-main${extname(here)}`), name] };
}

export interface SupervisorControlOptions {
  store: WorkloadStore;
  clock: Clock;
  spawnCommand?: (name: string) => SpawnCommand;
  /** The supervisor's whole environment (the runtime's, which may hold secrets it passes on to its server). */
  env: Record<string, string | undefined>;
  identities?: ProcessIdentities;
  /** How long `start` waits for `running`. */
  startTimeoutMs?: number;
  /** How long `stop` lets a supervisor shut its server down before killing both. */
  stopGraceMs?: number;
  pollMs?: number;
}

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch (error) {
    // Gone between the identity check and the signal: nothing left to stop.
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
  }
}

export function createSupervisorControl(options: SupervisorControlOptions): SupervisorControl {
  const { store, clock } = options;
  const identities = options.identities ?? createProcessIdentities();
  const spawnCommand = options.spawnCommand ?? ((name: string) => supervisorCommand(name));
  const startTimeoutMs = options.startTimeoutMs ?? 10_000;
  const stopGraceMs = options.stopGraceMs ?? 10_000;
  const pollMs = options.pollMs ?? 50;

  const waitGone = async (identity: ProcessIdentity, timeoutMs: number): Promise<boolean> => {
    const deadline = Date.now() + timeoutMs;
    while (await identities.isAlive(identity)) {
      if (Date.now() >= deadline) return false;
      await sleep(pollMs);
    }
    return true;
  };

  /** SIGTERM, a grace period, then SIGKILL, to `target` (a pid, or a negative process group) of a proven process. */
  const terminate = async (identity: ProcessIdentity, killTarget: number): Promise<void> => {
    signal(identity.pid, 'SIGTERM');
    if (await waitGone(identity, stopGraceMs)) return;
    // Still the same process (just checked), so its pid and group are still ours to kill.
    if (await identities.isAlive(identity)) signal(killTarget, 'SIGKILL');
    await waitGone(identity, stopGraceMs);
  };

  /** A status file that cannot be used proves no process, like none at all; the supervisor writes a new one. */
  const readStatus = (name: string): Promise<StatusRecord | undefined> =>
    store.readStatus(name).catch((error: unknown) => {
      if (error instanceof BrokenStateFileError) return undefined;
      throw error;
    });

  const start = async (name: string): Promise<void> => {
    const previous = await readStatus(name);
    if (await identities.isAlive(previous?.supervisor)) throw new ConflictError(`workload ${name} is already running; stop it first`);
    const { command, args } = spawnCommand(name);
    // Its own session and process group, so it outlives whoever started it (the API server, the CLI).
    const child = spawn(command, args, { detached: true, stdio: 'ignore', env: options.env });
    let ended: string | undefined;
    child.once('error', (error) => (ended = `could not be started: ${error.message}`));
    child.once('exit', (code, sig) => (ended = sig === null ? `exited with code ${String(code)}` : `was killed by ${sig}`));
    child.unref();
    const pid = child.pid;

    const deadline = Date.now() + startTimeoutMs;
    for (;;) {
      const record = await readStatus(name);
      const ours = pid !== undefined && record?.supervisor?.pid === pid;
      if (ours && record.status === 'running') return;
      if (ours && record.status === 'error') throw new UnavailableError(`workload ${name} failed to start: ${record.status_context}`);
      if (ended !== undefined) throw new UnavailableError(`workload ${name} failed to start: its supervisor ${ended}`);
      if (Date.now() >= deadline) {
        // Not reaped yet (no exit event), so the pid and the group it leads are still the ones we spawned.
        if (pid !== undefined && child.exitCode === null && child.signalCode === null) signal(-pid, 'SIGKILL');
        const reason = `did not start within ${String(Math.round(startTimeoutMs / 1000))}s${ours && record.status_context !== '' ? ` (${record.status_context})` : ''}`;
        await store.writeStatus(name, {
          ...(record ?? { started_at: clock.now().toISOString(), restarts: 0 }),
          status: 'error',
          status_context: reason,
          supervisor: undefined,
          server: undefined,
          updated_at: clock.now().toISOString(),
        });
        throw new UnavailableError(`workload ${name} ${reason}`);
      }
      await sleep(pollMs);
    }
  };

  const stop = async (_name: string, record: StatusRecord | undefined): Promise<void> => {
    if (record === undefined) return;
    const { supervisor, server } = record;
    if (supervisor !== undefined && (await identities.isAlive(supervisor))) {
      // The supervisor alone gets SIGTERM: it stops its server in order. Signalling the whole group
      // would kill the server first and make that look like a crash to be restarted.
      await terminate(supervisor, -supervisor.pid);
    }
    if (server !== undefined && (await identities.isAlive(server))) await terminate(server, server.pid);
  };

  return {
    start,
    stop,
    alive: async (record) => {
      const [supervisor, server] = await Promise.all([identities.isAlive(record.supervisor), identities.isAlive(record.server)]);
      return { supervisor, server };
    },
  };
}
