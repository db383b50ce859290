import type { Caller } from '../../core/auth/caller.js';
import { InvalidInputError, NotFoundError } from '../../core/errors.js';
import type { EntryType } from '../tables.js';
import type { EntryView } from './entry-view.js';
import { createPageMemo } from './page-memo.js';
import { indexedPage, scanPage, type Page, type PageQuery } from './pages.js';
import type { CatalogReadModel, RegistryDefinition, RegistryView, TypeView, VisibilityRule } from './read-model.js';
import { indexable, matchingNames, searchedText } from './search-index.js';

/** The seam where authorization plugs into consumer reads: a gate per registry and a rule per caller. */
export interface ConsumerAccess {
  /** Throws when the caller may not read the registry at all. */
  checkRegistryGate(caller: Caller, registry: RegistryDefinition): void;
  /** Which entries the caller may see; undefined means all of them. */
  visibility(caller: Caller): VisibilityRule | undefined;
}

export const openAccess: ConsumerAccess = { checkRegistryGate: () => undefined, visibility: () => undefined };

export type { Page } from './pages.js';

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
  const memo = createPageMemo();

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
      return memo(servers, JSON.stringify([query.cursor, query.limit, search, query.version, since]), () =>
        paginate(servers, list, query, search, (entry) =>
          (search === undefined || searchedText('server', entry).includes(search)) &&
          (exact === undefined || entry.version === exact) &&
          (since === undefined || entry.updatedAt.getTime() >= since),
        ),
      );
    },
    listServerVersions: (caller, registry, name) => versionsOf(caller, registry, 'server', name),
    getServerVersion: (caller, registry, name, version) => versionOf(caller, registry, 'server', name, version),
    listPackages(caller, registry, type, query) {
      const search = query.search?.toLowerCase();
      const statuses = query.statuses && query.statuses.length > 0 ? new Set(query.statuses) : undefined;
      const packages = view(caller, registry).types[type];
      return memo(packages, JSON.stringify([query.cursor, query.limit, search, query.statuses]), () =>
        paginate(packages, packages.latest, query, search, (entry) =>
          (search === undefined || searchedText(type, entry).includes(search)) && (statuses === undefined || statuses.has(entry.status)),
        ),
      );
    },
    listPackageVersions: (caller, registry, type, name) => versionsOf(caller, registry, type, name),
    getPackageVersion: (caller, registry, type, name, version) => versionOf(caller, registry, type, name, version),
  };
}

/**
 * A search long enough for the index visits only the names whose text may hold it; any other query
 * scans. Both give the same page: the index only narrows which entries `keep` is asked about.
 */
function paginate(view: TypeView, list: EntryView[], query: PageQuery, search: string | undefined, keep: (entry: EntryView) => boolean): Page {
  if (search === undefined || !indexable(search)) return scanPage(list, query, keep);
  return indexedPage(list, query, keep, (from) => matchingNames(view.searchIndexes, search, from));
}

export function parseStatuses(value: string | undefined): string[] | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  const statuses = value.split(',').map((status) => status.trim().toLowerCase()).filter(Boolean);
  const unknown = statuses.filter((status) => !['active', 'deprecated', 'archived'].includes(status));
  if (unknown.length > 0) throw new InvalidInputError(`status: unknown value ${unknown.map((s) => `"${s}"`).join(', ')}; use active, deprecated or archived`);
  return statuses;
}
