import type { Claims, SourceKind } from '../tables.js';
import type { SourceEntryRow, SourceRow } from './store.js';

const ORIGIN: Record<SourceKind, string> = { git: 'REMOTE', api: 'REMOTE', file: 'FILE', managed: 'MANAGED', kubernetes: 'KUBERNETES' };

const iso = (date: Date | null) => (date === null ? undefined : date.toISOString());

export function presentSource(row: SourceRow) {
  return {
    name: row.name,
    sourceType: row.kind,
    type: ORIGIN[row.kind],
    sourceConfig: row.config,
    filterConfig: row.filter,
    claims: row.claims,
    creationType: row.creation_type,
    syncSchedule: row.sync_schedule,
    syncStatus: {
      phase: row.phase,
      ...(row.last_attempt && { lastAttempt: iso(row.last_attempt) }),
      ...(row.last_sync_time && { lastSyncTime: iso(row.last_sync_time) }),
      attemptCount: row.attempt_count,
      message: row.message,
      serverCount: row.server_count,
      skillCount: row.skill_count,
      pluginCount: row.plugin_count,
    },
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

export type SourceResource = ReturnType<typeof presentSource>;

export interface SourceEntryResource {
  entryType: string;
  name: string;
  claims: Claims;
  versions: { version: string; title: string; description: string; createdAt: string; updatedAt: string }[];
}

/** Rows ordered by (type, name, version) become one item per entry name with its versions. */
export function presentSourceEntries(rows: SourceEntryRow[]): SourceEntryResource[] {
  const entries: SourceEntryResource[] = [];
  let current: SourceEntryResource | undefined;
  for (const row of rows) {
    if (current?.entryType !== row.entry_type || current.name !== row.name) {
      current = { entryType: row.entry_type, name: row.name, claims: row.claims, versions: [] };
      entries.push(current);
    }
    current.versions.push({
      version: row.version,
      title: row.title,
      description: row.description,
      createdAt: row.created_at.toISOString(),
      updatedAt: row.updated_at.toISOString(),
    });
  }
  return entries;
}
