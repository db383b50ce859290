import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Clock } from '../../../../core/clock.js';
import { Counter, type Registry } from '../../../../core/telemetry/metrics.js';
import type { RegistryDatabase } from '../../../tables.js';
import { releaseLease, renewLease, takeLeases } from '../../../sync/operations/claim-due-sources.js';
import { listKubernetesSources, onlyKubernetesSources } from '../../../sync/store.js';
import type { KubernetesSourceConfig } from '../../../../core/kubernetes/schema.js';
import type { SourceWatch } from './source-watch.js';

export interface KubernetesWatchersOptions {
  db: Kysely<RegistryDatabase>;
  clock: Clock;
  logger: Logger;
  owner: string;
  leaseMs: number;
  /** How often free or expired leases are looked for. */
  pollMs: number;
  debounceMs?: number;
  metrics?: Registry;
  /** The process environment, passed on to each watch. */
  env: Record<string, string | undefined>;
  onCatalogChanged(): Promise<void>;
}

export interface KubernetesWatchers {
  start(): void;
  /** Stops every watch and hands its lease back at once, for another replica to take. */
  stop(): Promise<void>;
  /** Claims free leases, renews held ones and follows definition changes now (tests; also run by the timer). */
  tick(): Promise<void>;
  /** Sources whose watch runs on this replica. */
  owned(): string[];
  /** Times the collections of a watched source were listed (re-list checks in tests). */
  listCount(sourceName: string): number;
}

interface Held {
  watch: SourceWatch;
  config: string;
}

/**
 * Runs the watches of kubernetes sources, one replica per source: the source_sync lease columns
 * (claimed with SKIP LOCKED, renewed, taken over once expired) say which replica watches it.
 * Kubernetes sources have no next_sync_at, so the sync scheduler never claims them.
 */
export function createKubernetesWatchers(options: KubernetesWatchersOptions): KubernetesWatchers {
  const { db, clock, logger, owner, leaseMs } = options;
  const held = new Map<string, Held>();
  const skipped = options.metrics
    ? new Counter({
        name: 'toolyard_kubernetes_skipped_objects_total',
        help: 'Annotated Kubernetes objects skipped by a snapshot: invalid (no valid registry-name) or error (broken annotations)',
        labelNames: ['source', 'reason'],
        registers: [options.metrics],
      })
    : undefined;
  let timer: NodeJS.Timeout | undefined;
  let ticking: Promise<void> | undefined;
  let stopped = true;

  async function drop(name: string, release: boolean): Promise<void> {
    const entry = held.get(name);
    if (!entry) return;
    held.delete(name);
    await entry.watch.stop();
    if (release) await releaseLease(db, name, owner).catch(() => undefined);
  }

  async function launch(name: string, config: string): Promise<void> {
    // the Kubernetes client is a large module: only a replica that watches a cluster loads it
    const { SourceWatch } = await import('./source-watch.js');
    const watch = new SourceWatch({
      db,
      clock,
      logger,
      owner,
      sourceName: name,
      config: JSON.parse(config) as KubernetesSourceConfig,
      debounceMs: options.debounceMs ?? 250,
      env: options.env,
      onCatalogChanged: () => options.onCatalogChanged(),
      onSkipped: (source, invalid, errors) => {
        if (invalid > 0) skipped?.inc({ source, reason: 'invalid' }, invalid);
        if (errors > 0) skipped?.inc({ source, reason: 'error' }, errors);
      },
      onLost: () => {
        logger.warn({ source: name }, 'kubernetes watch lease lost');
        void drop(name, false);
      },
    });
    held.set(name, { watch, config });
    watch.start();
    logger.info({ source: name }, 'kubernetes watch started');
  }

  function claim(now: Date): Promise<string[]> {
    return takeLeases(db, owner, now, leaseMs, onlyKubernetesSources);
  }

  async function round(): Promise<void> {
    const now = clock.now();
    for (const name of [...held.keys()]) {
      if (!(await renewLease(db, name, owner, new Date(now.getTime() + leaseMs)))) {
        logger.warn({ source: name }, 'kubernetes watch lease lost');
        await drop(name, false);
      }
    }
    const sources = await listKubernetesSources(db);
    const configs = new Map(sources.map((row) => [row.name, JSON.stringify(row.config)]));
    for (const [name, entry] of [...held]) {
      const config = configs.get(name);
      if (config === undefined) await drop(name, false);
      else if (config !== entry.config) {
        await drop(name, false);
        if (!stopped) await launch(name, config);
      }
    }
    if (stopped) return;
    for (const name of await claim(now)) {
      const config = configs.get(name);
      if (held.has(name)) continue;
      // created after the definitions were read: hand it back for the next round
      if (config === undefined) await releaseLease(db, name, owner);
      else await launch(name, config);
    }
  }

  function tick(): Promise<void> {
    ticking ??= round()
      .catch((error: unknown) => logger.warn({ err: error }, 'cannot manage kubernetes watches'))
      .finally(() => (ticking = undefined));
    return ticking;
  }

  return {
    start() {
      if (!stopped) return;
      stopped = false;
      timer = setInterval(() => void tick(), Math.max(50, Math.min(options.pollMs, leaseMs / 3)));
      timer.unref();
      void tick();
    },
    async stop() {
      stopped = true;
      if (timer) clearInterval(timer);
      await ticking;
      await Promise.all([...held.keys()].map((name) => drop(name, true)));
    },
    tick,
    owned: () => [...held.keys()].sort(),
    listCount: (name) => held.get(name)?.watch.listCount() ?? 0,
  };
}
