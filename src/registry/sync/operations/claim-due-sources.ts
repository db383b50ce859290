import type { Kysely, SelectQueryBuilder } from 'kysely';
import type { RegistryDatabase } from '../../tables.js';

export interface ClaimedSync {
  sourceName: string;
  startedAt: Date;
}

export type LeaseCandidates = SelectQueryBuilder<RegistryDatabase, 'source_sync', { source_name: string }>;

/**
 * Takes the lease of the sources `narrow` selects among those whose lease is free or expired, for
 * `leaseMs`. `SKIP LOCKED` lets replicas claim side by side without waiting on each other; the lease
 * (not the row lock) marks the work as taken for its whole duration, and expires if its holder dies.
 */
export async function takeLeases(
  db: Kysely<RegistryDatabase>,
  owner: string,
  now: Date,
  leaseMs: number,
  narrow: (candidates: LeaseCandidates) => LeaseCandidates,
): Promise<string[]> {
  const rows = await db.transaction().execute(async (trx) => {
    const free = await narrow(
      trx
        .selectFrom('source_sync')
        .select('source_name')
        .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now)])),
    )
      .forUpdate()
      .skipLocked()
      .execute();
    if (free.length === 0) return [];
    return trx
      .updateTable('source_sync')
      .set({ lease_owner: owner, lease_until: new Date(now.getTime() + leaseMs), phase: 'syncing', last_attempt: now })
      .where(
        'source_name',
        'in',
        free.map((row) => row.source_name),
      )
      .returning('source_name')
      .execute();
  });
  return rows.map((row) => row.source_name);
}

/** Claims up to `limit` sources whose sync is due. */
export async function claimDueSources(
  db: Kysely<RegistryDatabase>,
  owner: string,
  now: Date,
  leaseMs: number,
  limit: number,
): Promise<ClaimedSync[]> {
  if (limit <= 0) return [];
  const names = await takeLeases(db, owner, now, leaseMs, (candidates) => candidates.where('next_sync_at', '<=', now).orderBy('next_sync_at').limit(limit));
  return names.map((sourceName) => ({ sourceName, startedAt: now }));
}

/** Extends a held lease; false when the lease was lost (taken over, or the source was deleted). */
export async function renewLease(db: Kysely<RegistryDatabase>, sourceName: string, owner: string, until: Date): Promise<boolean> {
  const result = await db
    .updateTable('source_sync')
    .set({ lease_until: until })
    .where('source_name', '=', sourceName)
    .where('lease_owner', '=', owner)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Gives a claimed sync back without an outcome (shutdown): it is due again at once. */
export async function releaseLease(db: Kysely<RegistryDatabase>, sourceName: string, owner: string): Promise<void> {
  await db
    .updateTable('source_sync')
    .set({ lease_owner: null, lease_until: null })
    .where('source_name', '=', sourceName)
    .where('lease_owner', '=', owner)
    .execute();
}

export async function requestSync(db: Kysely<RegistryDatabase>, sourceName: string, now: Date): Promise<void> {
  await db
    .updateTable('source_sync')
    .set({ next_sync_at: now, sync_requested_at: now })
    .where('source_name', '=', sourceName)
    .where('next_sync_at', 'is not', null)
    .execute();
}

