import { sql, type Transaction } from 'kysely';
import type { RegistryDatabase } from '../../tables.js';
import type { EntryCounts } from './write-source-entries.js';

interface OutcomeBase {
  sourceName: string;
  owner: string;
  startedAt: Date;
  now: Date;
}

/** A sync run by the scheduler: its lease ends with it, and the next sync is due after the interval. */
export interface SyncOutcome extends OutcomeBase {
  intervalMs: number;
}

/** A snapshot written by a watch (kubernetes sources): the watch keeps its lease, and nothing is scheduled. */
export interface WatchOutcome extends OutcomeBase {
  watched: true;
}

/**
 * Locks the source's sync row and confirms the lease is still ours; the writer calls it first so a
 * sync that lost its lease (taken over after a stall) never overwrites the newer holder's work.
 */
export async function lockOwnSync(trx: Transaction<RegistryDatabase>, sourceName: string, owner: string): Promise<boolean> {
  const row = await trx
    .selectFrom('source_sync')
    .select('lease_owner')
    .where('source_name', '=', sourceName)
    .forUpdate()
    .executeTakeFirst();
  return row?.lease_owner === owner;
}

async function nextSyncAt(trx: Transaction<RegistryDatabase>, outcome: SyncOutcome, delayMs: number): Promise<Date> {
  const row = await trx.selectFrom('source_sync').select('sync_requested_at').where('source_name', '=', outcome.sourceName).executeTakeFirst();
  // a sync asked for while this one ran (a definition change, an API request) must still happen
  const askedDuring = row?.sync_requested_at && row.sync_requested_at > outcome.startedAt;
  return askedDuring ? outcome.now : new Date(outcome.now.getTime() + delayMs);
}

/**
 * Records a successful sync. Without `counts` the content was unchanged: the counts stay, and so does
 * the message of the last full sync unless a failure has replaced it since.
 */
export async function recordSyncSuccess(
  trx: Transaction<RegistryDatabase>,
  outcome: SyncOutcome | WatchOutcome,
  counts: EntryCounts | undefined,
  contentHash: string | undefined,
  message = '',
): Promise<void> {
  await trx
    .updateTable('source_sync')
    .set({
      phase: 'complete',
      last_sync_time: outcome.now,
      attempt_count: 0,
      message: counts ? message : sql<string>`case when attempt_count = 0 then message else '' end`,
      ...(counts && { server_count: counts.serverCount, skill_count: counts.skillCount, plugin_count: counts.pluginCount }),
      ...(contentHash !== undefined && { content_hash: contentHash }),
      ...('watched' in outcome
        ? { last_attempt: outcome.now }
        : { next_sync_at: await nextSyncAt(trx, outcome, outcome.intervalMs), lease_owner: null, lease_until: null }),
    })
    .where('source_name', '=', outcome.sourceName)
    .execute();
}

/** Backoff after a failure: doubling from 5 s, capped at the interval, with jitter in its upper half. */
export function retryDelay(attemptCount: number, intervalMs: number, random: () => number = Math.random): number {
  const capped = Math.min(intervalMs, 5_000 * 2 ** Math.min(attemptCount - 1, 20));
  return Math.round(capped / 2 + (random() * capped) / 2);
}

export async function recordSyncFailure(trx: Transaction<RegistryDatabase>, outcome: SyncOutcome | WatchOutcome, message: string): Promise<number> {
  const row = await trx
    .selectFrom('source_sync')
    .select(['attempt_count', 'lease_owner'])
    .where('source_name', '=', outcome.sourceName)
    .forUpdate()
    .executeTakeFirst();
  if (row?.lease_owner !== outcome.owner) return row?.attempt_count ?? 0;
  const attempts = row.attempt_count + 1;
  if ('watched' in outcome) {
    await trx.updateTable('source_sync').set({ phase: 'failed', attempt_count: attempts, message, last_attempt: outcome.now }).where('source_name', '=', outcome.sourceName).execute();
    return attempts;
  }
  await trx
    .updateTable('source_sync')
    .set({
      phase: 'failed',
      attempt_count: attempts,
      message,
      next_sync_at: await nextSyncAt(trx, outcome, retryDelay(attempts, outcome.intervalMs)),
      lease_owner: null,
      lease_until: null,
    })
    .where('source_name', '=', outcome.sourceName)
    .execute();
  return attempts;
}
