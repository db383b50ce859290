import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { Clock } from '../../core/clock.js';
import { NotFoundError } from '../../core/errors.js';
import type { RuntimePaths } from '../paths.js';
import { BrokenStateFileError } from '../state/files.js';
import { createNameQueue } from './name-queue.js';
import { checkName } from './run-config.js';
import type { StatusRecord } from './schemas.js';
import type { WorkloadStore } from './store.js';
import type { SupervisorControl } from './supervision.js';

/** Work accepted now and finished later (the API answers 202; the CLI waits for `done`). */
export interface Accepted {
  done: Promise<void>;
}

export type BulkAction = 'stop' | 'restart' | 'remove';

type StatusChange = Partial<StatusRecord> & Pick<StatusRecord, 'status' | 'status_context'>;

/** Starting, stopping and deleting workloads, one operation at a time for each name. */
export interface WorkloadLifecycle {
  /** Runs `task` after every operation queued before it on the same workload. */
  inTurn: <T>(name: string, task: () => Promise<T>) => Promise<T>;
  /** Whether a delete of the workload was accepted here and is not done yet. */
  isDeleting: (name: string) => boolean;
  /** The same, or a delete recorded by another process. */
  beingDeleted: (name: string) => Promise<boolean>;
  writeStatus: (name: string, change: StatusChange, before?: StatusRecord) => Promise<void>;
  /** Starts the supervisor; a failure leaves the workload in place with status `error` and the reason. */
  start: (name: string) => Promise<void>;
  /** Stops and starts a workload from inside its turn (an edit). */
  restartNow: (name: string, context: string) => Promise<void>;
  /**
   * Unknown names fail before anything happens; then each status is written at once and the work is
   * queued behind the workload's earlier operations. `done` never rejects: a failure is logged and
   * recorded as the workload's error.
   */
  bulk: (names: readonly string[], action: BulkAction) => Promise<Accepted>;
}

export interface WorkloadLifecycleOptions {
  store: WorkloadStore;
  supervisor: SupervisorControl;
  paths: RuntimePaths;
  clock: Clock;
  logger: Logger;
  /** Removes what a deleted workload that ran `image` leaves outside its processes (its containers). */
  release: (image: string, name: string) => Promise<void>;
}

const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/**
 * Every operation on one workload runs in that name's queue, one after the other, so a stop or
 * restart never races a delete, and a delete is final for whatever comes after it. The supervisor is
 * never called with the store lock held, since starting and stopping wait on a process.
 */
export function createWorkloadLifecycle(options: WorkloadLifecycleOptions): WorkloadLifecycle {
  const { store, supervisor, clock, logger, paths } = options;
  const queue = createNameQueue();
  /** Names whose deletion was accepted and is not done yet. */
  const deleting = new Set<string>();
  const workdir = (name: string): string => join(paths.data, 'workdirs', name);
  const now = (): string => clock.now().toISOString();

  /** The recorded status; undefined when there is none or its file cannot be used (no process is proven by it then). */
  const recordOf = async (name: string): Promise<StatusRecord | undefined> => {
    try {
      return await store.readStatus(name);
    } catch (error) {
      if (error instanceof BrokenStateFileError) return undefined;
      throw error;
    }
  };

  /** Whether a delete of the workload was accepted, here or (by its recorded status) in another process. */
  const beingDeleted = async (name: string): Promise<boolean> => deleting.has(name) || (await recordOf(name))?.status === 'removing';

  const writeStatus = async (name: string, change: StatusChange, before?: StatusRecord) => {
    const base: StatusRecord = before ?? { status: 'stopped', status_context: '', started_at: '', restarts: 0, updated_at: '' };
    await store.writeStatus(name, { ...base, ...change, updated_at: now() });
  };

  const start = async (name: string): Promise<void> => {
    try {
      await supervisor.start(name);
    } catch (error) {
      logger.warn({ workload: name, reason: messageOf(error) }, 'workload failed to start');
      await store.withLock(name, async () => {
        const record = await recordOf(name);
        // The supervisor's own error context is more precise than the launcher's.
        if (record?.status !== 'error') await writeStatus(name, { status: 'error', status_context: messageOf(error) }, record);
      });
    }
  };

  /** Records `status` at once, so a read right after the answer shows what is under way. */
  const mark = (name: string, status: 'stopping' | 'removing', context = '') =>
    store.withLock(name, async () => {
      const record = await recordOf(name);
      await writeStatus(name, { status, status_context: context }, record);
    });

  const stopNow = async (name: string): Promise<void> => {
    const record = await recordOf(name);
    await supervisor.stop(name, record);
    await store.withLock(name, async () => {
      const current = await recordOf(name);
      if (current?.status === 'removing') return;
      // another process started it again meanwhile: that one is not ours to mark stopped
      const restarted = current?.supervisor !== undefined && current.supervisor.pid !== record?.supervisor?.pid && (await supervisor.alive(current)).supervisor;
      if (!restarted) await writeStatus(name, { status: 'stopped', status_context: '', supervisor: undefined, server: undefined }, current);
    });
  };

  const restartNow = async (name: string, context: string): Promise<void> => {
    await mark(name, 'stopping', context);
    await stopNow(name);
    if (!deleting.has(name)) await start(name);
  };

  const removeNow = async (name: string): Promise<void> => {
    const image = (await store.readConfig(name).catch(() => undefined))?.image ?? '';
    const record = await recordOf(name);
    await supervisor.stop(name, record);
    // a supervisor another process started meanwhile has recorded itself: it goes too
    const current = await recordOf(name);
    if (current?.supervisor !== undefined && current.supervisor.pid !== record?.supervisor?.pid) await supervisor.stop(name, current);
    // a server killed before it could clean up leaves its container behind
    if (image !== '') await options.release(image, name);
    await store.withLock(name, async () => {
      await store.remove(name);
      await rm(workdir(name), { recursive: true, force: true });
    });
  };

  /**
   * The names once each, if they all exist and none is being deleted; otherwise a NotFoundError naming
   * the others, before anything is done. Whether a delete came first is decided on arrival, before
   * anything is awaited, so a delete is final for every request that comes after it.
   */
  const accept = async (names: readonly string[], action: BulkAction): Promise<string[]> => {
    names.forEach((name, index) => checkName(name, `names[${String(index)}]`));
    const unique = [...new Set(names)];
    const deleted = unique.filter((name) => deleting.has(name));
    if (deleted.length > 0) throw new NotFoundError(`workloads not found: ${deleted.join(', ')}`);
    if (action === 'remove') for (const name of unique) deleting.add(name);
    try {
      const unknown: string[] = [];
      for (const name of unique) {
        // a delete may be given again (one that died half-way in another process); nothing else may
        const gone = !(await store.exists(name)) || (action !== 'remove' && (await recordOf(name))?.status === 'removing');
        if (gone) unknown.push(name);
      }
      if (unknown.length > 0) throw new NotFoundError(`workloads not found: ${unknown.join(', ')}`);
    } catch (error) {
      if (action === 'remove') for (const name of unique) deleting.delete(name);
      throw error;
    }
    return unique;
  };

  /** The queued part of a stop, restart or delete; the workload may have gone since it was accepted. */
  const perform = async (name: string, action: BulkAction): Promise<void> => {
    if (action === 'remove') return removeNow(name);
    if (!(await store.exists(name))) return;
    if (action === 'stop') return stopNow(name);
    return restartNow(name, 'restarting');
  };

  const bulk = async (names: readonly string[], action: BulkAction): Promise<Accepted> => {
    const accepted = await accept(names, action);
    await Promise.all(
      accepted.map(async (name) => {
        if (action === 'remove') await mark(name, 'removing');
        // a delete that came in meanwhile has the last word on the status
        else if (!deleting.has(name)) await mark(name, 'stopping', action === 'restart' ? 'restarting' : '');
      }),
    );
    const done = Promise.all(
      accepted.map(async (name) => {
        try {
          await queue.run(name, () => perform(name, action));
        } catch (error) {
          logger.warn({ workload: name, reason: messageOf(error) }, `workload ${action} failed`);
          await store.withLock(name, async () => {
            await writeStatus(name, { status: 'error', status_context: messageOf(error) }, await recordOf(name));
          });
        } finally {
          if (action === 'remove') deleting.delete(name);
        }
      }),
    ).then(() => undefined);
    return { done };
  };

  return { inTurn: queue.run, isDeleting: (name) => deleting.has(name), beingDeleted, writeStatus, start, restartNow, bulk };
}
