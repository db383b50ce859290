import type { Kysely } from 'kysely';
import type { Caller } from '../../core/auth/caller.js';
import type { Clock } from '../../core/clock.js';
import { ForbiddenError, InvalidInputError, NotFoundError, ConflictError } from '../../core/errors.js';
import type { RegistryDatabase } from '../tables.js';
import { markCatalogChanged } from '../sync/operations/write-source-entries.js';
import { isForeignKeyViolation } from '../db-errors.js';
import { presentRegistry, presentRegistryEntry, type RegistryEntryResource, type RegistryResource } from './present.js';
import * as store from './store.js';
import { pageOf, type Page } from '../http/paging.js';
import type { ListQuery } from '../http/schemas.js';
import { decodeListCursor, encodeListCursor } from '../../core/http/cursor.js';
import { checkResourceName, type CatalogEvents } from '../sources/service.js';
import type { RegistryBody } from './schemas.js';

export interface RegistriesService {
  list(caller: Caller, query: ListQuery): Promise<Page<RegistryResource>>;
  get(caller: Caller, name: string): Promise<RegistryResource>;
  put(caller: Caller, name: string, body: RegistryBody): Promise<{ registry: RegistryResource; created: boolean }>;
  delete(caller: Caller, name: string): Promise<void>;
  entries(caller: Caller, name: string, query: ListQuery): Promise<Page<RegistryEntryResource>>;
  /** The shape and value rules of put (400), so a wrapper can apply them before its own checks. */
  validate(name: string, body: RegistryBody): Promise<void>;
}

export function createRegistriesService(options: { db: Kysely<RegistryDatabase>; clock: Clock; events: CatalogEvents }): RegistriesService {
  const { db, clock, events } = options;

  async function existing(name: string): Promise<store.RegistryRow> {
    const row = await store.findRegistry(db, name);
    if (!row) throw new NotFoundError(`registry "${name}" not found`);
    return row;
  }

  function writable(row: store.RegistryRow): void {
    if (row.creation_type === 'CONFIG') {
      throw new ForbiddenError(`registry "${row.name}" is defined in the configuration file; change it there and restart`);
    }
  }

  return {
    async list(_caller, { cursor, limit }) {
      const after = cursor === undefined ? undefined : decodeListCursor(cursor, 'registries', 1)[0];
      const rows = await store.listRegistriesPage(db, { after, limit: limit + 1 });
      return pageOf(rows.map(presentRegistry), limit, (last) => encodeListCursor('registries', [last.name]));
    },
    async get(_caller, name) {
      return presentRegistry(await existing(name));
    },
    async validate(name, body) {
      checkResourceName('registry', name);
      const sources = body.sources ?? [];
      const duplicates = sources.filter((source, index) => sources.indexOf(source) !== index);
      if (duplicates.length > 0) throw new InvalidInputError(`sources: ${[...new Set(duplicates)].map((s) => `"${s}"`).join(', ')} listed more than once`);
      const known = await store.existingSourceNames(db, sources);
      const unknown = sources.filter((source) => !known.has(source));
      if (unknown.length > 0) throw new InvalidInputError(`sources: no source named ${unknown.map((s) => `"${s}"`).join(', ')}`);
    },
    async put(_caller, name, body) {
      await this.validate(name, body);
      const sources = body.sources ?? [];
      const current = await store.findRegistry(db, name);
      if (current) writable(current);
      try {
        await db.transaction().execute(async (trx) => {
          await store.upsertRegistry(trx, { name, claims: body.claims ?? {}, sources, creationType: 'API' }, clock.now());
          await markCatalogChanged(trx);
        });
      } catch (error) {
        if (isForeignKeyViolation(error)) throw new ConflictError('a source of the registry was deleted meanwhile; check the source names and try again');
        throw error;
      }
      await events.catalogChanged();
      return { registry: presentRegistry(await existing(name)), created: current === undefined };
    },
    async delete(_caller, name) {
      writable(await existing(name));
      await db.transaction().execute(async (trx) => {
        await store.deleteRegistry(trx, name);
        await markCatalogChanged(trx);
      });
      await events.catalogChanged();
    },
    async entries(_caller, name, { cursor, limit }) {
      await existing(name);
      const list = `registries/${name}/entries`;
      const after = cursor === undefined ? undefined : entryKey(decodeListCursor(cursor, list, 4));
      const rows = await store.listRegistryEntriesPage(db, name, { after, limit: limit + 1 });
      return pageOf(rows.map(presentRegistryEntry), limit, (last) => encodeListCursor(list, [String(last.position), last.entryType, last.name, last.version]));
    },
  };
}

function entryKey([position, entryType, name, version]: string[]): store.RegistryEntryKey {
  if (!/^\d{1,9}$/.test(position ?? '')) throw new InvalidInputError('cursor: not a cursor of this list; start again without one');
  return [Number(position), entryType ?? '', name ?? '', version ?? ''];
}
