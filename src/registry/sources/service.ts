import type { Kysely } from 'kysely';
import type { Caller } from '../../core/auth/caller.js';
import { formatDuration, parseDuration } from '../../core/config/duration.js';
import { ConflictError, ForbiddenError, InvalidInputError, NotFoundError } from '../../core/errors.js';
import type { Clock } from '../../core/clock.js';
import type { RegistryDatabase } from '../tables.js';
import { CatalogFormatError } from './providers/catalog-document.js';
import {
  DEFAULT_SYNC_INTERVAL,
  SYNCED_KINDS,
  checkSourceDefinition,
  normalizeFilter,
  sourceKindOf,
  type SourceDefinition,
} from './definition.js';
import { catalogFromBytes } from './providers/provider.js';
import type { SourceAccess } from './access.js';
import { markCatalogChanged } from '../sync/operations/write-source-entries.js';
import { isForeignKeyViolation, isUniqueViolation } from '../db-errors.js';
import { presentSource, presentSourceEntries, type SourceEntryResource, type SourceResource } from './present.js';
import * as store from './store.js';
import { pageOf, type Page } from '../http/paging.js';
import type { ListQuery } from '../http/schemas.js';
import { decodeListCursor, encodeListCursor } from '../../core/http/cursor.js';
import type { SourceValues } from './store.js';

export interface SourcesService {
  list(caller: Caller, query: ListQuery): Promise<Page<SourceResource>>;
  get(caller: Caller, name: string): Promise<SourceResource>;
  put(caller: Caller, name: string, definition: SourceDefinition): Promise<{ source: SourceResource; created: boolean }>;
  delete(caller: Caller, name: string): Promise<void>;
  entries(caller: Caller, name: string, query: ListQuery): Promise<Page<SourceEntryResource>>;
  requestSync(caller: Caller, name: string): Promise<void>;
  /** The shape and value rules of put (400), so a wrapper can apply them before its own checks. */
  validate(name: string, definition: SourceDefinition): void;
}

export interface CatalogEvents {
  /** A write changed the catalog: bring this replica's read model up to date before answering. */
  catalogChanged(): Promise<void>;
  /** A sync is due now: look for it without waiting for the next poll. */
  syncRequested(sourceName: string): Promise<void>;
}

export const DNS_LABEL = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;

export function checkResourceName(kind: string, name: string): void {
  if (!DNS_LABEL.test(name)) throw new InvalidInputError(`name: "${name}" is not a valid ${kind} name (a DNS label: 1 to 63 of a-z, 0-9 and "-", not starting or ending with "-")`);
}

/** Turns a validated definition into the stored values; shared by the admin API and the config reconciler. */
export function sourceValues(name: string, definition: SourceDefinition, creationType: SourceValues['creationType']): SourceValues {
  const kind = sourceKindOf(definition);
  if (kind === undefined) throw new InvalidInputError(checkSourceDefinition(definition, '').join('; '));
  const synced = SYNCED_KINDS.includes(kind);
  const interval = synced ? (parseDuration(definition.syncPolicy?.interval ?? DEFAULT_SYNC_INTERVAL) ?? null) : null;
  return {
    name,
    kind,
    config: definition[kind] ?? {},
    filter: normalizeFilter(definition),
    claims: definition.claims ?? {},
    syncIntervalMs: interval,
    syncSchedule: interval === null ? '' : (definition.syncPolicy?.interval ?? formatDuration(interval)),
    creationType,
  };
}

export function createSourcesService(options: { db: Kysely<RegistryDatabase>; clock: Clock; events: CatalogEvents; access: SourceAccess }): SourcesService {
  const { db, clock, events, access } = options;

  async function existing(name: string): Promise<store.SourceRow> {
    const row = await store.findSource(db, name);
    if (!row) throw new NotFoundError(`source "${name}" not found`);
    return row;
  }

  function writable(row: store.SourceRow): void {
    if (row.creation_type === 'CONFIG') {
      throw new ForbiddenError(`source "${row.name}" is defined in the configuration file; change it there and restart`);
    }
  }

  return {
    async list(_caller, { cursor, limit }) {
      const after = cursor === undefined ? undefined : decodeListCursor(cursor, 'sources', 1)[0];
      const rows = await store.listSourcesPage(db, { after, limit: limit + 1 });
      return pageOf(rows.map(presentSource), limit, (last) => encodeListCursor('sources', [last.name]));
    },
    async get(_caller, name) {
      return presentSource(await existing(name));
    },
    validate(name, definition) {
      checkResourceName('source', name);
      const problems = checkSourceDefinition(definition, '');
      if (problems.length > 0) throw new InvalidInputError(problems.join('; '));
      if (definition.file?.data !== undefined) checkInlineCatalog(definition.file.data);
    },
    async put(_caller, name, definition) {
      this.validate(name, definition);
      const refused = await access.problems(definition);
      if (refused.length > 0) throw new InvalidInputError(refused.join('; '));
      const values = sourceValues(name, definition, 'API');
      const current = await store.findSource(db, name);
      if (current) {
        writable(current);
        if (current.kind !== values.kind) {
          throw new InvalidInputError(`source "${name}" is a ${current.kind} source; its kind cannot change to ${values.kind} (delete it and create it again)`);
        }
      } else if (values.kind === 'managed' && (await store.findManagedSource(db))) {
        throw new ConflictError('a managed source already exists; a deployment has at most one');
      }
      const now = clock.now();
      try {
        await db.transaction().execute(async (trx) => {
          if (current) await store.updateSource(trx, values, now);
          else await store.insertSource(trx, values, now);
          await markCatalogChanged(trx, name);
        });
      } catch (error) {
        if (isUniqueViolation(error)) {
          throw new ConflictError(values.kind === 'managed' ? 'a managed source already exists; a deployment has at most one' : `source "${name}" was created at the same time by another request`);
        }
        throw error;
      }
      await events.catalogChanged();
      if (values.syncIntervalMs !== null) await events.syncRequested(name);
      return { source: presentSource(await existing(name)), created: current === undefined };
    },
    async delete(_caller, name) {
      const row = await existing(name);
      writable(row);
      const users = await store.registriesUsingSource(db, name);
      if (users.length > 0) throw new ConflictError(`source "${name}" is used by registr${users.length > 1 ? 'ies' : 'y'} ${users.join(', ')}; remove it from them first`);
      try {
        await db.transaction().execute(async (trx) => {
          await store.deleteSource(trx, name);
          await markCatalogChanged(trx);
        });
      } catch (error) {
        if (isForeignKeyViolation(error)) throw new ConflictError(`source "${name}" was added to a registry meanwhile; remove it from the registry first`);
        throw error;
      }
      await events.catalogChanged();
    },
    async entries(_caller, name, { cursor, limit }) {
      await existing(name);
      // the list names its source: a cursor of another source's entries is refused
      const list = `sources/${name}/entries`;
      const after = cursor === undefined ? undefined : (decodeListCursor(cursor, list, 2) as store.EntryKey);
      const { rows, more } = await store.listSourceEntriesPage(db, name, { after, limit });
      const items = presentSourceEntries(rows);
      const last = items.at(-1);
      return { items, nextCursor: more && last ? encodeListCursor(list, [last.entryType, last.name]) : undefined };
    },
    async requestSync(_caller, name) {
      const row = await existing(name);
      if (row.sync_interval_ms === null) throw new InvalidInputError(`source "${name}" is a ${row.kind} source; only git, api and file sources are synced`);
      await events.syncRequested(name);
    },
  };
}

function checkInlineCatalog(data: unknown): void {
  try {
    catalogFromBytes(typeof data === 'string' ? data : JSON.stringify(data), 'file.data').parse();
  } catch (error) {
    if (error instanceof CatalogFormatError) throw new InvalidInputError(`file.data: ${error.message}`);
    throw error;
  }
}
