import type { Logger } from 'pino';
import { UnavailableError } from '../../core/errors.js';
import type { AiPolicyBackend, StoredPolicy } from './backend.js';

/**
 * This replica's in-memory view of every AI policy, in name order: lists read it, and the enforcement
 * set is compiled from it. It follows the backend's changes (the change feed, plus a poll of the change
 * sequence), so another replica's write shows within the poll interval; this replica's own writes are
 * applied before the write answers.
 */
export interface PolicyView {
  /** False until the first load succeeded. */
  ready(): boolean;
  /** Reads the changes since the last read (after a local write, on a change notice, on the poll). */
  refresh(): Promise<void>;
  /** Every policy, sorted by name; 503 before the first load. */
  sorted(): readonly StoredPolicy[];
  /** Runs after every refresh that changed something. */
  onUpdate(listener: (policies: readonly StoredPolicy[]) => void): void;
  start(): void;
  stop(): void;
}

export interface PolicyViewOptions {
  backend: AiPolicyBackend;
  logger: Logger;
  pollMs: number;
}

const byName = (left: StoredPolicy, right: StoredPolicy) => (left.name < right.name ? -1 : left.name > right.name ? 1 : 0);

export function createPolicyView(options: PolicyViewOptions): PolicyView {
  const { backend, logger } = options;
  const policies = new Map<string, StoredPolicy>();
  const listeners: ((policies: readonly StoredPolicy[]) => void)[] = [];
  let sorted: StoredPolicy[] = [];
  let position: string | undefined;
  let loaded = false;
  // the last read failed: the backend is lost, and reads say so rather than answer from an old view
  let lost = false;
  let reading: Promise<void> = Promise.resolve();
  let timer: NodeJS.Timeout | undefined;

  const read = async () => {
    const { changes, position: next } = await backend.changesSince(position);
    for (const change of changes) {
      if (change.kind === 'upsert') policies.set(change.policy.name, change.policy);
      else policies.delete(change.name);
    }
    position = next;
    const first = !loaded;
    loaded = true;
    if (changes.length === 0 && !first) return;
    sorted = [...policies.values()].sort(byName);
    for (const listener of listeners) listener(sorted);
  };

  // one read at a time; a refresh asked for during one runs after it, so it sees what was committed before it was asked
  const refresh = () => {
    const next = reading.then(read).then(
      () => {
        lost = false;
      },
      (error: unknown) => {
        lost = true;
        throw error;
      },
    );
    reading = next.catch(() => undefined);
    return next;
  };

  backend.onChange(() => void refresh().catch((error: unknown) => logger.warn({ err: error }, 'cannot read AI policy changes')));

  return {
    ready: () => loaded,
    refresh,
    sorted() {
      if (!loaded) throw new UnavailableError('the AI policies are not loaded yet on this replica; try again shortly');
      if (lost) throw new UnavailableError('the AI policy store cannot be reached; try again shortly');
      return sorted;
    },
    onUpdate: (listener) => listeners.push(listener),
    start() {
      if (timer) return;
      timer = setInterval(() => void refresh().catch((error: unknown) => logger.warn({ err: error }, 'cannot read AI policy changes')), options.pollMs);
      timer.unref();
    },
    stop() {
      if (timer) clearInterval(timer);
      timer = undefined;
    },
  };
}
