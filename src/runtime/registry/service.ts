import { isAbsolute } from 'node:path';
import type { Logger } from 'pino';
import type { Clock } from '../../core/clock.js';
import { InvalidInputError, NotFoundError } from '../../core/errors.js';
import type { RuntimePaths } from '../paths.js';
import { browse, browsePackage, browseServer, findCatalogServer, indexPackages, indexServers, type BrowseIndex, type BrowsePage } from './browse.js';
import { NotACatalogError, type Catalog } from './catalog.js';
import { createCatalogSource } from './catalog-source.js';
import { createJsonFetcher, type Fetch } from './fetcher.js';
import { text, type Json } from './server-json.js';
import type {
  BrowseQuery,
  ContainerServerEntry,
  RegistryContent,
  RegistrySummary,
  RegistryUpdate,
  RemoteServerEntry,
  ServerLookup,
  SourceType,
} from './schemas.js';
import { activeSource, createSettingsStore, type ActiveSource, type SettingsStore } from './settings.js';
import type { RegistryLookup } from './types.js';
import { matchPackage, versionMissing, type CatalogPackages } from './packages.js';
import { isJsonObject } from '../../core/json-object.js';

export const DEFAULT_REGISTRY = 'default';

export interface RegistryService extends RegistryLookup, CatalogPackages {
  list: () => Promise<RegistrySummary[]>;
  get: (name: string) => Promise<RegistrySummary & { registry: RegistryContent }>;
  servers: (name: string) => Promise<{ servers: ContainerServerEntry[]; remote_servers: RemoteServerEntry[] }>;
  server: (name: string, serverName: string) => Promise<ServerLookup>;
  update: (name: string, update: RegistryUpdate) => Promise<{ type: SourceType }>;
  refresh: (name: string) => Promise<RegistrySummary>;
  browseServers: (query: BrowseQuery) => Promise<BrowsePage>;
  browseServer: (serverName: string) => Promise<Json>;
  browsePackages: (kind: 'skill' | 'plugin', query: BrowseQuery) => Promise<BrowsePage>;
  browsePackage: (kind: 'skill' | 'plugin', namespace: string, name: string) => Promise<Json>;
}

export interface RegistryServiceOptions {
  paths: RuntimePaths;
  clock: Clock;
  logger: Logger;
  /** The catalog that ships with the package (see SHIPPED_CATALOG_PATH). */
  shippedCatalogPath: string;
  fetch?: Fetch;
  /** Bound on one whole fetch of a catalog URL or API page (default 30 s). */
  fetchTimeoutMs?: number;
  /** How long a remote catalog is served from cache (default 1 h). */
  cacheTtlMs?: number;
  /** Where the registry's source is read and saved (default: registry.json under the config directory). */
  settings?: SettingsStore;
}

const copy = <T>(value: T): T => structuredClone(value);

/** Checked before anything is fetched, so a mistyped URL is a 400 that names the field. */
function checkHttpUrl(field: string, value: string | undefined): void {
  if (value === undefined || value === '') return;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new InvalidInputError(`${field}: "${value}" is not a URL; give an http or https URL such as https://registry.example.com/registry/default`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new InvalidInputError(`${field}: ${url.protocol} URLs are not supported; use http or https`);
}

function requireDefault(name: string): void {
  if (name !== DEFAULT_REGISTRY) throw new NotFoundError(`no registry named "${name}"; the runtime has one registry, ${DEFAULT_REGISTRY}`);
}

function entriesOf(catalog: Catalog): Pick<RegistryContent, 'servers' | 'remote_servers'> {
  const servers: Record<string, ContainerServerEntry> = {};
  const remote: Record<string, RemoteServerEntry> = {};
  for (const item of catalog.servers) {
    if (item.entry?.is_remote === true) remote[item.entry.remote_server.name] = item.entry.remote_server;
    else if (item.entry) servers[item.entry.server.name] = item.entry.server;
  }
  return { servers, remote_servers: remote };
}

/** The configured registry (`default`): where it reads from, its entries, and the browse API's records. */
export function createRegistryService(options: RegistryServiceOptions): RegistryService {
  const settings = options.settings ?? createSettingsStore(options.paths);
  const fetchJson = createJsonFetcher({ ...(options.fetch && { fetch: options.fetch }), ...(options.fetchTimeoutMs !== undefined && { timeoutMs: options.fetchTimeoutMs }) });
  const source = createCatalogSource({ paths: options.paths, fetchJson, clock: options.clock, logger: options.logger, ...(options.cacheTtlMs !== undefined && { ttlMs: options.cacheTtlMs }) });

  const active = async (): Promise<ActiveSource> => activeSource(await settings.read(), options.shippedCatalogPath);
  const catalog = async (): Promise<Catalog> => source.get(await active());

  /** Browse indexes live as long as the catalog read they index: a new read gets new ones. */
  const browseIndexes = new WeakMap<Catalog, Partial<Record<'servers' | 'skill' | 'plugin', BrowseIndex>>>();
  const indexed = async (list: 'servers' | 'skill' | 'plugin'): Promise<BrowseIndex> => {
    const loaded = await catalog();
    let held = browseIndexes.get(loaded);
    if (!held) browseIndexes.set(loaded, (held = {}));
    held[list] ??= list === 'servers' ? indexServers(loaded) : indexPackages(list === 'skill' ? loaded.skills : loaded.plugins);
    return held[list];
  };

  const summary = (from: ActiveSource, loaded: Catalog): RegistrySummary => ({
    name: DEFAULT_REGISTRY,
    type: from.type,
    source: from.type === 'default' ? '' : from.location,
    version: loaded.version,
    last_updated: loaded.last_updated,
    server_count: loaded.servers.filter((server) => server.entry !== undefined).length,
    auth_status: 'none',
    auth_type: '',
    auth_config: { audience: '', client_id: '', issuer: '', scopes: [] },
  });

  const current = async () => {
    const from = await active();
    return { from, loaded: await source.get(from) };
  };

  /** Reads the new source before saving it, so a bad URL or file never replaces a working registry. */
  const validate = async (next: ActiveSource): Promise<void> => {
    if (next.type === 'file') {
      if (!isAbsolute(next.location)) throw new InvalidInputError(`local_path must be an absolute path, not "${next.location}"`);
      try {
        await source.reload(next);
      } catch (error) {
        if (error instanceof NotACatalogError) throw new InvalidInputError(`${next.location} is not a catalog: ${error.message}`);
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'ENOENT' || code === 'EISDIR' || code === 'EACCES') throw new InvalidInputError(`cannot read a catalog from ${next.location} (${code})`);
        throw error;
      }
      return;
    }
    if (next.type === 'api' || next.type === 'url') await source.reload(next);
  };

  return {
    findServer: async (registry, server) => {
      requireDefault(registry);
      const found = findCatalogServer(await catalog(), server);
      return found?.entry && copy(found.entry);
    },
    describe: async (registry) => {
      requireDefault(registry);
      const from = await active();
      return { url: from.type === 'url' || from.type === 'file' ? from.location : '', api_url: from.type === 'api' ? from.location : '' };
    },
    list: async () => {
      const { from, loaded } = await current();
      return [summary(from, loaded)];
    },
    get: async (name) => {
      requireDefault(name);
      const { from, loaded } = await current();
      return copy({ ...summary(from, loaded), registry: { version: loaded.version, last_updated: loaded.last_updated, ...entriesOf(loaded), groups: loaded.groups } });
    },
    servers: async (name) => {
      requireDefault(name);
      const entries = entriesOf(await catalog());
      return copy({ servers: Object.values(entries.servers), remote_servers: Object.values(entries.remote_servers) });
    },
    server: async (name, serverName) => {
      requireDefault(name);
      const found = findCatalogServer(await catalog(), serverName);
      if (!found?.entry) throw new NotFoundError(`no server named "${serverName}" in registry ${name}`);
      return copy(found.entry);
    },
    update: async (name, update) => {
      requireDefault(name);
      const given = (['api_url', 'url', 'local_path'] as const).filter((key) => update[key] !== undefined && update[key] !== '');
      if (given.length > 1) throw new InvalidInputError(`give one of url, api_url and local_path, not ${given.join(' and ')}`);
      for (const key of ['api_url', 'url'] as const) checkHttpUrl(key, update[key]);
      const next: RegistryUpdate = {};
      const key = given[0];
      if (key !== undefined) next[key] = update[key];
      if (key !== undefined && key !== 'local_path' && update.allow_private_ip === true) next.allow_private_ip = true;
      const target = activeSource(next, options.shippedCatalogPath);
      await validate(target);
      await settings.write(next);
      return { type: target.type };
    },
    refresh: async (name) => {
      requireDefault(name);
      const from = await active();
      return summary(from, await source.reload(from));
    },
    browseServers: async (query) => browse(await indexed('servers'), query),
    browseServer: async (serverName) => copy(browseServer(await catalog(), serverName)),
    browsePackages: async (kind, query) => browse(await indexed(kind), query),
    browsePackage: async (kind, namespace, name) => {
      const loaded = await catalog();
      return copy(browsePackage(kind === 'skill' ? loaded.skills : loaded.plugins, kind, namespace, name));
    },
    findPackage: async (kind, reference, version) => {
      const loaded = await catalog();
      const record = matchPackage(kind === 'skill' ? loaded.skills : loaded.plugins, kind, reference);
      if (record === undefined || version === undefined || version === 'latest' || record.version === version) return record && copy(record);
      // the catalog keeps the latest of each name; other versions are only on a registry API
      const from = await active();
      if (from.type !== 'api') throw versionMissing(kind, record, version);
      const path = [`${kind}s`, text(record.namespace), text(record.name), 'versions', version].map(encodeURIComponent).join('/');
      const found = await fetchJson(`${from.location.replace(/\/+$/, '')}/v0.1/x/dev.toolyard/${path}`, { allowPrivateIp: from.allowPrivateIp, missingIsEmpty: true });
      if (!isJsonObject(found)) throw versionMissing(kind, record, version);
      return found;
    },
  };
}
