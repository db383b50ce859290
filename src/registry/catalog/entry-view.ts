import type { Selectable } from 'kysely';
import type { Claims, EntriesTable, EntryType } from '../tables.js';
import { OFFICIAL_META } from '../sources/providers/records.js';

/** One stored entry version as the read model holds it, with its consumer JSON serialized once. */
export interface EntryView {
  sourceName: string;
  entryType: EntryType;
  name: string;
  version: string;
  status: string;
  statusMessage: string | null;
  title: string;
  description: string;
  claims: Claims;
  publishedAt: Date;
  updatedAt: Date;
  statusChangedAt: Date;
  createdAt: Date;
  isLatest: boolean;
  /** Lower-cased name, and name plus description, for case-insensitive search. */
  nameLower: string;
  textLower: string;
  /** The consumer record as UTF-8 JSON bytes, encoded once and written into responses as they are. */
  json: Buffer;
}

/** An entry row as read from the table (without its id and hash). */
export type StoredEntry = Omit<Selectable<EntriesTable>, 'id' | 'hash'>;

function officialMeta(row: StoredEntry, isLatest: boolean): Record<string, unknown> {
  return {
    status: row.status,
    ...(row.status_message !== null && { statusMessage: row.status_message }),
    publishedAt: row.published_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
    statusChangedAt: row.status_changed_at.toISOString(),
    isLatest,
  };
}

/**
 * Server records are `{server, _meta}` with the published server.json spliced in as stored text, so
 * publisher metadata reaches consumers byte-for-byte. Skill and plugin records are the published
 * record with the registry's own metadata added under `_meta`.
 */
export function consumerJson(row: StoredEntry, isLatest: boolean): string {
  const meta = officialMeta(row, isLatest);
  if (row.entry_type === 'server') return `{"server":${row.body},"_meta":${JSON.stringify({ [OFFICIAL_META]: meta })}}`;
  const record = JSON.parse(row.body) as Record<string, unknown>;
  const ownMeta = typeof record._meta === 'object' && record._meta !== null ? record._meta : {};
  return JSON.stringify({ ...record, status: row.status, _meta: { ...ownMeta, [OFFICIAL_META]: meta } });
}

export function toEntryView(row: StoredEntry, isLatest: boolean): EntryView {
  const nameLower = row.name.toLowerCase();
  return {
    sourceName: row.source_name,
    entryType: row.entry_type,
    name: row.name,
    version: row.version,
    status: row.status,
    statusMessage: row.status_message,
    title: row.title,
    description: row.description,
    claims: row.claims,
    publishedAt: row.published_at,
    updatedAt: row.updated_at,
    statusChangedAt: row.status_changed_at,
    createdAt: row.created_at,
    isLatest,
    nameLower,
    textLower: `${nameLower}\n${row.description.toLowerCase()}`,
    json: Buffer.from(consumerJson(row, isLatest)),
  };
}
