import type { Kysely } from 'kysely';
import type { Caller } from '../../core/auth/caller.js';
import type { Clock } from '../../core/clock.js';
import { ConflictError, InvalidInputError, NotFoundError } from '../../core/errors.js';
import type { Claims, EntryType, RegistryDatabase } from '../tables.js';
import { packageRecord, RecordError, serverRecord, type IngestRecord } from '../sources/providers/records.js';
import { markCatalogChanged } from '../sync/operations/write-source-entries.js';
import { isUniqueViolation } from '../db-errors.js';
import * as store from './store.js';
import type { CatalogEvents } from '../sources/service.js';
import { findManagedSource } from '../sources/store.js';
import type { PublishBody } from './schemas.js';

export interface EntriesService {
  publish(caller: Caller, body: PublishBody): Promise<void>;
  deleteVersion(caller: Caller, type: EntryType, name: string, version: string): Promise<void>;
  getClaims(caller: Caller, type: EntryType, name: string): Promise<Claims>;
  putClaims(caller: Caller, type: EntryType, name: string, claims: Claims): Promise<void>;
  /** The claims of the managed source, undefined when there is none. */
  managedSourceClaims(): Promise<Claims | undefined>;
}

const MAX_PUBLISHER_META_BYTES = 256 * 1024;

/** Claims compared as sets: key order and the order of array values do not matter. */
export function sameClaims(a: Claims, b: Claims): boolean {
  const canonical = (claims: Claims) =>
    JSON.stringify(
      Object.keys(claims)
        .sort()
        .map((key) => {
          const value = claims[key];
          return [key, Array.isArray(value) ? [...new Set(value)].sort() : value];
        }),
    );
  return canonical(a) === canonical(b);
}

/** Validates a publish body into one record, with the same rules for every caller. */
export function readPublishedRecord(body: PublishBody): IngestRecord {
  const given = (['server', 'skill', 'plugin'] as const).filter((key) => body[key] !== undefined);
  if (given.length !== 1) throw new InvalidInputError('exactly one of server, skill and plugin is required');
  const type = given[0] as EntryType;
  const payload = body[type];
  try {
    const meta = (payload as { _meta?: unknown } | null)?._meta;
    if (meta !== undefined && Buffer.byteLength(JSON.stringify(meta)) > MAX_PUBLISHER_META_BYTES) {
      throw new RecordError(`_meta: publisher metadata is larger than 256 KiB`);
    }
    return type === 'server' ? serverRecord({ server: payload }, true) : packageRecord(type, payload, true);
  } catch (error) {
    if (error instanceof RecordError) throw new InvalidInputError(`${type}.${error.message}`);
    throw error;
  }
}

export function createEntriesService(options: { db: Kysely<RegistryDatabase>; clock: Clock; events: CatalogEvents }): EntriesService {
  const { db, clock, events } = options;

  async function managedSourceName(): Promise<string | undefined> {
    return (await findManagedSource(db))?.name;
  }

  async function managedVersions(type: EntryType, name: string): Promise<{ source: string; versions: store.EntryNameRow[] }> {
    const source = await managedSourceName();
    const versions = source === undefined ? [] : await store.findEntryVersions(db, source, type, name);
    if (source === undefined || versions.length === 0) throw new NotFoundError(`no published ${type} named "${name}"`);
    return { source, versions };
  }

  return {
    async publish(_caller, body) {
      const record = readPublishedRecord(body);
      const claims = body.claims ?? {};
      const source = await managedSourceName();
      if (source === undefined) throw new InvalidInputError('no managed source is defined: add a source with `managed: {}` to publish entries');
      try {
        await db.transaction().execute(async (trx) => {
          const versions = await store.lockEntryVersions(trx, source, record.entryType, record.name);
          if (versions.some((row) => row.version === record.version)) {
            throw new ConflictError(`${record.entryType} ${record.name} version ${record.version} is already published`);
          }
          const first = versions[0];
          if (first && !sameClaims(first.claims, claims)) {
            throw new ConflictError(`${record.entryType} ${record.name} was first published with other claims; every version must carry ${JSON.stringify(first.claims)}`);
          }
          const now = clock.now();
          await store.insertEntry(trx, source, record, claims, now);
          await store.recountSource(trx, source, now);
          await markCatalogChanged(trx, source);
        });
      } catch (error) {
        if (isUniqueViolation(error)) throw new ConflictError(`${record.entryType} ${record.name} version ${record.version} is already published`);
        throw error;
      }
      await events.catalogChanged();
    },
    async deleteVersion(_caller, type, name, version) {
      const { source } = await managedVersions(type, name);
      const deleted = await db.transaction().execute(async (trx) => {
        if (!(await store.deleteEntryVersion(trx, source, type, name, version))) return false;
        await store.recountSource(trx, source, clock.now());
        await markCatalogChanged(trx, source);
        return true;
      });
      if (!deleted) throw new NotFoundError(`${type} "${name}" has no published version "${version}"`);
      await events.catalogChanged();
    },
    async managedSourceClaims() {
      return (await findManagedSource(db))?.claims;
    },
    async getClaims(_caller, type, name) {
      const { versions } = await managedVersions(type, name);
      return versions[0]?.claims ?? {};
    },
    async putClaims(_caller, type, name, claims) {
      const { source } = await managedVersions(type, name);
      await db.transaction().execute(async (trx) => {
        await store.setEntryClaims(trx, source, type, name, claims, clock.now());
        await markCatalogChanged(trx, source);
      });
      await events.catalogChanged();
    },
  };
}
