import type { Kysely } from 'kysely';
import type { RegistryDatabase } from '../tables.js';
import type { LeaseCandidates } from './operations/claim-due-sources.js';

type Db = Kysely<RegistryDatabase>;

/** What a sync of the source needs: its definition and the fingerprint of the content it last wrote. */
export function findSourceToSync(db: Db, sourceName: string) {
  return db
    .selectFrom('sources')
    .innerJoin('source_sync', 'source_sync.source_name', 'sources.name')
    .select(['kind', 'config', 'filter', 'claims', 'sync_interval_ms', 'content_hash', 'creation_type'])
    .where('name', '=', sourceName)
    .executeTakeFirst();
}

/** The entry counts the last sync recorded. */
export function findSyncCounts(db: Db, sourceName: string) {
  return db.selectFrom('source_sync').select(['server_count', 'skill_count', 'plugin_count']).where('source_name', '=', sourceName).executeTakeFirst();
}

/** The definitions of every kubernetes source. */
export function listKubernetesSources(db: Db) {
  return db.selectFrom('sources').select(['name', 'config']).where('kind', '=', 'kubernetes').execute();
}

/** Narrows lease candidates to kubernetes sources, which are watched rather than synced on a schedule. */
export function onlyKubernetesSources(candidates: LeaseCandidates): LeaseCandidates {
  return candidates.where('source_name', 'in', (eb) => eb.selectFrom('sources').select('name').where('kind', '=', 'kubernetes'));
}
