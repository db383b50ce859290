import type { Kysely } from 'kysely';
import { Counter, Gauge, Histogram, type Registry } from '../../core/telemetry/metrics.js';
import type { RegistryDatabase } from '../tables.js';
import { findSyncCounts } from './store.js';

export interface SyncMetrics {
  duration: Histogram<'source' | 'outcome'>;
  outcomes: Counter<'source' | 'outcome'>;
  entries: Gauge<'source' | 'entry_type'>;
  refreshCounts(db: Kysely<RegistryDatabase>, sourceName: string): Promise<void>;
}

export function createSyncMetrics(registry: Registry): SyncMetrics {
  const entries = new Gauge({
    name: 'toolyard_source_entries',
    help: 'Entry versions a source serves, by entry type',
    labelNames: ['source', 'entry_type'],
    registers: [registry],
  });
  return {
    duration: new Histogram({
      name: 'toolyard_source_sync_duration_seconds',
      help: 'Duration of source syncs by outcome (changed, unchanged, failed, lost)',
      labelNames: ['source', 'outcome'],
      buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120],
      registers: [registry],
    }),
    outcomes: new Counter({
      name: 'toolyard_source_syncs_total',
      help: 'Source sync attempts by outcome',
      labelNames: ['source', 'outcome'],
      registers: [registry],
    }),
    entries,
    async refreshCounts(db, sourceName) {
      const row = await findSyncCounts(db, sourceName);
      if (!row) return;
      entries.set({ source: sourceName, entry_type: 'server' }, row.server_count);
      entries.set({ source: sourceName, entry_type: 'skill' }, row.skill_count);
      entries.set({ source: sourceName, entry_type: 'plugin' }, row.plugin_count);
    },
  };
}
