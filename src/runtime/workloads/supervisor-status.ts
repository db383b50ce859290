import type { Clock } from '../../core/clock.js';
import type { StatusRecord } from './schemas.js';
import type { WorkloadStore } from './store.js';

export interface StatusWriter {
  readonly current: StatusRecord;
  /** Changes the record and queues its write; writes land in the order of the changes. */
  set: (change: Partial<Omit<StatusRecord, 'updated_at'>>) => void;
  /** Resolves once every queued write has landed. */
  flush: () => Promise<void>;
}

export interface StatusWriterOptions {
  name: string;
  store: WorkloadStore;
  clock: Clock;
  initial: Omit<StatusRecord, 'updated_at'>;
  log: (line: string) => void;
}

/**
 * The supervisor is the only writer of its workload's status while it runs. It writes without the
 * workload lock: each write is an atomic rename, and the service may hold that lock while it waits
 * for this very supervisor to stop.
 */
export function createStatusWriter(options: StatusWriterOptions): StatusWriter {
  const { name, store, clock, log } = options;
  let record: StatusRecord = { ...options.initial, updated_at: clock.now().toISOString() };
  let queue = Promise.resolve();

  const set = (change: Partial<Omit<StatusRecord, 'updated_at'>>): void => {
    const before = record;
    record = { ...record, ...change, updated_at: clock.now().toISOString() };
    if (record.status !== before.status || record.status_context !== before.status_context) {
      log(`status ${record.status}${record.status_context === '' ? '' : `: ${record.status_context}`}`);
    }
    const snapshot = record;
    queue = queue
      .then(() => store.writeStatus(name, snapshot))
      .catch((error: unknown) => log(`could not write status: ${error instanceof Error ? error.message : String(error)}`));
  };
  set({});

  return {
    get current() {
      return record;
    },
    set,
    flush: () => queue,
  };
}
