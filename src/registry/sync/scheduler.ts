import { claimDueSources, requestSync } from './operations/claim-due-sources.js';
import { syncSource, type SyncDependencies, type SyncResult } from './sync-source.js';

export interface SyncScheduler {
  start(): void;
  /** Stops claiming and interrupts the syncs under way, handing their leases back. */
  stop(): Promise<void>;
  /** Asks for an immediate sync of a source and wakes the loop. */
  request(sourceName: string): Promise<void>;
  /** Looks for due work now instead of at the next poll. */
  wake(): void;
  /** Claims what is due and waits until those syncs end (for tests and one-shot runs). */
  runDue(): Promise<Map<string, SyncResult>>;
}

export interface SchedulerOptions extends SyncDependencies {
  pollMs: number;
  concurrency: number;
}

/**
 * Each replica polls for due sources and claims them through the database, so any number of replicas
 * share the work with no coordinator; a slow source occupies one slot and never delays the others.
 */
export function createSyncScheduler(options: SchedulerOptions): SyncScheduler {
  const running = new Map<string, Promise<SyncResult>>();
  let timer: NodeJS.Timeout | undefined;
  let stopped = true;
  let ticking: Promise<void> | undefined;
  let shutdown = new AbortController();

  async function claimAndStart(): Promise<Map<string, Promise<SyncResult>>> {
    const started = new Map<string, Promise<SyncResult>>();
    const free = options.concurrency - running.size;
    const claims = await claimDueSources(options.db, options.owner, options.clock.now(), options.leaseMs, free);
    for (const claim of claims) {
      const work = syncSource(options, claim, shutdown.signal)
        .catch((error: unknown) => {
          options.logger.error({ err: error, source: claim.sourceName }, 'sync crashed');
          return 'failed' as const;
        })
        .finally(() => {
          running.delete(claim.sourceName);
          if (!stopped) scheduler.wake();
        });
      running.set(claim.sourceName, work);
      started.set(claim.sourceName, work);
    }
    return started;
  }

  function tick(): Promise<void> {
    ticking ??= claimAndStart()
      .then(() => undefined)
      .catch((error: unknown) => options.logger.warn({ err: error }, 'cannot look for due syncs'))
      .finally(() => (ticking = undefined));
    return ticking;
  }

  const scheduler: SyncScheduler = {
    start() {
      if (!stopped) return;
      stopped = false;
      shutdown = new AbortController();
      timer = setInterval(() => void tick(), options.pollMs);
      timer.unref();
      void tick();
    },
    async stop() {
      stopped = true;
      if (timer) clearInterval(timer);
      await ticking;
      shutdown.abort();
      await Promise.allSettled(running.values());
    },
    async request(sourceName) {
      await requestSync(options.db, sourceName, options.clock.now());
      scheduler.wake();
    },
    wake() {
      if (!stopped) void tick();
    },
    async runDue() {
      await ticking;
      const started = await claimAndStart();
      const results = new Map<string, SyncResult>();
      for (const [name, work] of started) results.set(name, await work);
      return results;
    },
  };
  return scheduler;
}
