import { createHash } from 'node:crypto';
import { sql, type Insertable, type Transaction } from 'kysely';
import type { Claims, EntriesTable, EntryType, RegistryDatabase } from '../../tables.js';
import type { IngestRecord } from '../../sources/providers/records.js';

export interface EntryCounts {
  serverCount: number;
  skillCount: number;
  pluginCount: number;
}

export interface WriteResult extends EntryCounts {
  inserted: number;
  updated: number;
  deleted: number;
}

const INSERT_BATCH = 500;

function recordHash(record: IngestRecord, claims: Claims): string {
  return createHash('sha256')
    .update(
      JSON.stringify([
        record.status,
        record.statusMessage,
        record.publishedAt?.toISOString(),
        record.updatedAt?.toISOString(),
        record.statusChangedAt?.toISOString(),
        claims,
      ]),
    )
    .update(record.body)
    .digest('hex');
}

export function keyOf(type: EntryType, name: string, version: string): string {
  return `${type}\u0000${name}\u0000${version}`;
}

export function countRecords(records: readonly { entryType: EntryType }[]): EntryCounts {
  const counts = { serverCount: 0, skillCount: 0, pluginCount: 0 };
  for (const record of records) counts[`${record.entryType}Count`]++;
  return counts;
}

/**
 * Makes the stored entries of a source equal to `records` (each with `claims` unless it carries its
 * own), inside the caller's transaction. Rows whose content hash is unchanged are not touched, so an
 * entry keeps its ingestion time across syncs.
 * Changed rows are deleted and inserted again (keeping their first-seen times): a batched insert is far
 * cheaper than one UPDATE per row on both engines.
 */
export async function writeSourceEntries(
  trx: Transaction<RegistryDatabase>,
  sourceName: string,
  records: readonly IngestRecord[],
  claims: Claims,
  now: Date,
): Promise<WriteResult> {
  const existing = await trx
    .selectFrom('entries')
    .select(['id', 'entry_type', 'name', 'version', 'hash', 'status', 'published_at', 'status_changed_at', 'created_at'])
    .where('source_name', '=', sourceName)
    .execute();
  const byKey = new Map(existing.map((row) => [keyOf(row.entry_type, row.name, row.version), row]));
  const kept = new Set<string>();
  const toDelete: number[] = [];
  const toInsert: Insertable<EntriesTable>[] = [];
  let updated = 0;

  for (const record of records) {
    const key = keyOf(record.entryType, record.name, record.version);
    kept.add(key);
    const recordClaims = record.claims ?? claims;
    const hash = recordHash(record, recordClaims);
    const old = byKey.get(key);
    if (old?.hash === hash) continue;
    if (old) {
      toDelete.push(old.id);
      updated++;
    }
    const publishedAt = record.publishedAt ?? old?.published_at ?? now;
    const statusChanged = old !== undefined && old.status !== record.status;
    toInsert.push({
      source_name: sourceName,
      entry_type: record.entryType,
      name: record.name,
      version: record.version,
      status: record.status,
      status_message: record.statusMessage,
      title: record.title,
      description: record.description,
      claims: JSON.stringify(recordClaims),
      body: record.body,
      hash,
      published_at: publishedAt,
      updated_at: record.updatedAt ?? now,
      status_changed_at: record.statusChangedAt ?? (statusChanged ? now : (old?.status_changed_at ?? publishedAt)),
      created_at: old?.created_at ?? now,
    });
  }
  for (const [key, row] of byKey) if (!kept.has(key)) toDelete.push(row.id);

  if (toDelete.length > 0) {
    await trx.deleteFrom('entries').where('id', '=', sql<number>`any(${sql.val(toDelete)}::bigint[])`).execute();
  }
  for (let start = 0; start < toInsert.length; start += INSERT_BATCH) {
    await trx.insertInto('entries').values(toInsert.slice(start, start + INSERT_BATCH)).execute();
  }
  if (toDelete.length > 0 || toInsert.length > 0) await markCatalogChanged(trx, sourceName);
  return { ...countRecords(records), inserted: toInsert.length - updated, updated, deleted: toDelete.length - updated };
}

/** Tells every replica's read model that this source's entries (and so the catalog) changed. */
export async function markCatalogChanged(trx: Transaction<RegistryDatabase>, sourceName?: string): Promise<void> {
  if (sourceName !== undefined) {
    await trx
      .updateTable('sources')
      .set({ entries_generation: sql<number>`entries_generation + 1` })
      .where('name', '=', sourceName)
      .execute();
  }
  await trx
    .updateTable('catalog_state')
    .set({ generation: sql<number>`generation + 1` })
    .where('id', '=', 1)
    .execute();
  // delivered at commit: replicas listening refresh at once instead of at their next poll
  await sql`select pg_notify(${CATALOG_CHANNEL}, '')`.execute(trx);
}

export const CATALOG_CHANNEL = 'toolyard_catalog';
