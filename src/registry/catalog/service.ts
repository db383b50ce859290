import type { Caller } from '../../core/auth/caller.js';
import { decodeCursor, encodeCursor } from '../../core/http/cursor.js';
import { InvalidInputError, NotFoundError } from '../../core/errors.js';
import type { EntryType } from '../tables.js';
import type { EntryView } from './entry-view.js';
import type { CatalogReadModel, RegistryDefinition, RegistryView, VisibilityRule } from './read-model.js';
import { compareKeys } from './versions.js';

/** The seam where authorization plugs into consumer reads: a gate per registry and a rule per caller. */
export interface ConsumerAccess {
  /** Throws when the caller may not read the registry at all. */
  checkRegistryGate(caller: Caller, registry: RegistryDefinition): void;
  /** Which entries the caller may see; undefined means all of them. */
  visibility(caller: Caller): VisibilityRule | undefined;
}

export const openAccess: ConsumerAccess = { checkRegistryGate: () => undefined, visibility: () => undefined };

export interface Page {
  items: EntryView[];
  nextCursor?: string;
}

export interface ServerListQuery {
  cursor?: string | undefined;
  limit: number;
  search?: string | undefined;
  version?: string | undefined;
  updatedSince?: Date | undefined;
}

export interface PackageListQuery {
  cursor?: string | undefined;
  limit: number;
  search?: string | undefined;
  statuses?: string[] | undefined;
}

export interface CatalogService {
  listServers(caller: Caller, registry: string, query: ServerListQuery): Page;
  listServerVersions(caller: Caller, registry: string, name: string): EntryView[];
  getServerVersion(caller: Caller, registry: string, name: string, version: string): EntryView;
  listPackages(caller: Caller, registry: string, type: 'skill' | 'plugin', query: PackageListQuery): Page;
  listPackageVersions(caller: Caller, registry: string, type: 'skill' | 'plugin', name: string): EntryView[];
  getPackageVersion(caller: Caller, registry: string, type: 'skill' | 'plugin', name: string, version: string): EntryView;
}

/** Consumer reads, all answered from the in-memory read model. */
export function createCatalogService(options: { readModel: CatalogReadModel; access?: ConsumerAccess }): CatalogService {
  const { readModel } = options;
  const access = options.access ?? openAccess;

  function view(caller: Caller, name: string): RegistryView {
    const definition = readModel.registryDefinition(name);
    if (!definition) throw new NotFoundError(`registry "${name}" not found`);
    access.checkRegistryGate(caller, definition);
    const registry = readModel.registry(name, access.visibility(caller));
    if (!registry) throw new NotFoundError(`registry "${name}" not found`);
    return registry;
  }

  function versionsOf(caller: Caller, registry: string, type: EntryType, name: string): EntryView[] {
    const versions = view(caller, registry).types[type].byName.get(name);
    if (!versions) throw new NotFoundError(`${type} "${name}" not found in registry "${registry}"`);
    return versions;
  }

  function versionOf(caller: Caller, registry: string, type: EntryType, name: string, version: string): EntryView {
    const versions = versionsOf(caller, registry, type, name);
    const found = version === 'latest' ? versions.find((entry) => entry.isLatest) ?? versions[0] : versions.find((entry) => entry.version === version);
    if (!found) throw new NotFoundError(`${type} "${name}" has no version "${version}" in registry "${registry}"`);
    return found;
  }

  return {
    listServers(caller, registry, query) {
      const servers = view(caller, registry).types.server;
      const list = query.version === 'latest' ? servers.latest : servers.all;
      const search = query.search?.toLowerCase();
      const since = query.updatedSince?.getTime();
      const exact = query.version !== undefined && query.version !== 'latest' ? query.version : undefined;
      return paginate(list, query, (entry) =>
        (search === undefined || entry.nameLower.includes(search)) &&
        (exact === undefined || entry.version === exact) &&
        (since === undefined || entry.updatedAt.getTime() >= since),
      );
    },
    listServerVersions: (caller, registry, name) => versionsOf(caller, registry, 'server', name),
    getServerVersion: (caller, registry, name, version) => versionOf(caller, registry, 'server', name, version),
    listPackages(caller, registry, type, query) {
      const search = query.search?.toLowerCase();
      const statuses = query.statuses && query.statuses.length > 0 ? new Set(query.statuses) : undefined;
      return paginate(view(caller, registry).types[type].latest, query, (entry) =>
        (search === undefined || entry.textLower.includes(search)) && (statuses === undefined || statuses.has(entry.status)),
      );
    },
    listPackageVersions: (caller, registry, type, name) => versionsOf(caller, registry, type, name),
    getPackageVersion: (caller, registry, type, name, version) => versionOf(caller, registry, type, name, version),
  };
}

/**
 * Keyset pagination over a list ordered by (name, version): the cursor is the key of the last item
 * returned, so concurrent inserts and deletes never shift or repeat the items of later pages.
 */
function paginate(list: EntryView[], query: { cursor?: string | undefined; limit: number }, keep: (entry: EntryView) => boolean): Page {
  let start = 0;
  if (query.cursor !== undefined) {
    const after = decodeCursor(query.cursor, 2);
    let low = 0;
    let high = list.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      const entry = list[middle] as EntryView;
      if (compareKeys([entry.name, entry.version], after) <= 0) low = middle + 1;
      else high = middle;
    }
    start = low;
  }
  const items: EntryView[] = [];
  for (let index = start; index < list.length; index++) {
    const entry = list[index] as EntryView;
    if (!keep(entry)) continue;
    if (items.length === query.limit) {
      const last = items[items.length - 1] as EntryView;
      return { items, nextCursor: encodeCursor([last.name, last.version]) };
    }
    items.push(entry);
  }
  return { items };
}

export function parseStatuses(value: string | undefined): string[] | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  const statuses = value.split(',').map((status) => status.trim().toLowerCase()).filter(Boolean);
  const unknown = statuses.filter((status) => !['active', 'deprecated', 'archived'].includes(status));
  if (unknown.length > 0) throw new InvalidInputError(`status: unknown value ${unknown.map((s) => `"${s}"`).join(', ')}; use active, deprecated or archived`);
  return statuses;
}
