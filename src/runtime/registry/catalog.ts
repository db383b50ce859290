import valid from 'semver/functions/valid.js';
import gte from 'semver/functions/gte.js';
import { containerEntry, remoteEntry, serverJsonOfContainer, serverJsonOfRemote } from './local-form.js';
import { entryFromServerJson, OFFICIAL_META, publisherExtras, text, type Json } from './server-json.js';
import type { CatalogGroup, ContainerServerEntry, RemoteServerEntry, ServerLookup } from './schemas.js';
import { isJsonObject } from '../../core/json-object.js';

/** One server of a catalog: its newest server.json and, when the runtime can run it, its entry. */
export interface CatalogServer {
  /** The reverse-DNS catalog name (a local-form file's entry name). */
  fullName: string;
  /** The server.json the browse API shows. */
  record: Json;
  /** Searched by the browse API's `q`. */
  tags: string[];
  /** Absent for servers with nothing the runtime can run; its name is the local entry name. */
  entry: ServerLookup | undefined;
}

export interface Catalog {
  version: string;
  last_updated: string;
  /** Sorted by full name. */
  servers: CatalogServer[];
  groups: CatalogGroup[];
  skills: Json[];
  plugins: Json[];
}

export class NotACatalogError extends Error {}

const objects = (value: unknown): Json[] => (Array.isArray(value) ? value.filter(isJsonObject) : []);
const byName = <T>(items: T[], name: (item: T) => string): T[] => [...items].sort((a, b) => (name(a) < name(b) ? -1 : name(a) > name(b) ? 1 : 0));

/**
 * The newest record of each name: the one the registry marked isLatest, else the highest semantic
 * version (a version that is not semver loses to one that is), else the last one in the file.
 */
function latestOf<T>(items: T[], key: (item: T) => string, version: (item: T) => string, marked: (item: T) => boolean): T[] {
  const chosen = new Map<string, T>();
  for (const item of items) {
    const current = chosen.get(key(item));
    if (current === undefined || newer(item, current)) chosen.set(key(item), item);
  }
  return [...chosen.values()];

  function newer(candidate: T, current: T): boolean {
    if (marked(current) !== marked(candidate)) return marked(candidate);
    const [a, b] = [valid(version(candidate)), valid(version(current))];
    if (a !== null && b !== null) return gte(a, b);
    return b === null;
  }
}

interface Versioned {
  record: Json;
  official: Json;
}

/** Items are server.json objects or registry responses `{server, _meta}`; deleted records are left out. */
function upstreamServers(items: unknown[]): Versioned[] {
  const records: Versioned[] = [];
  for (const item of items.filter(isJsonObject)) {
    const record = isJsonObject(item.server) ? item.server : item;
    const meta = isJsonObject(item._meta) ? item._meta : isJsonObject(record._meta) ? record._meta : {};
    const official = isJsonObject(meta[OFFICIAL_META]) ? meta[OFFICIAL_META] : {};
    if (text(record.name) === '' || official.status === 'deleted') continue;
    records.push({ record, official });
  }
  return latestOf(records, (item) => text(item.record.name), (item) => text(item.record.version), (item) => item.official.isLatest === true);
}

function latestPackages(items: unknown): Json[] {
  const records = objects(items).filter((item) => text(item.name) !== '');
  const key = (item: Json) => `${text(item.namespace)}/${text(item.name)}`;
  const marked = (item: Json) => item.isLatest === true || (isJsonObject(item._meta) && isJsonObject(item._meta[OFFICIAL_META]) && item._meta[OFFICIAL_META].isLatest === true);
  return byName(latestOf(records, key, (item) => text(item.version), marked), key);
}

/**
 * Local entry names are the last segment of the catalog name (`io.github.foo/weather-mcp` →
 * `weather-mcp`). When several servers share it, the first by full name keeps it and each other one
 * is named by its full name with the slash as a dash (`io.github.zed-weather-mcp`), with `-2`, `-3`
 * added in the unlikely case that is taken too; so a name depends only on the catalog's content.
 */
function assignNames(servers: CatalogServer[]): void {
  const taken = new Set<string>();
  const runnable = servers.filter((server) => server.entry !== undefined);
  const short = (server: CatalogServer) => server.fullName.slice(server.fullName.lastIndexOf('/') + 1);
  const counts = new Map<string, number>();
  for (const server of runnable) counts.set(short(server), (counts.get(short(server)) ?? 0) + 1);
  // unique short names first, so a collision elsewhere can never take one of them
  const ordered = [...runnable.filter((server) => counts.get(short(server)) === 1), ...runnable.filter((server) => counts.get(short(server)) !== 1)];
  for (const server of ordered) {
    const qualified = server.fullName.replace(/[^A-Za-z0-9._-]+/g, '-');
    let name = taken.has(short(server)) ? qualified : short(server);
    for (let suffix = 2; taken.has(name); suffix++) name = `${qualified}-${String(suffix)}`;
    taken.add(name);
    const entry = server.entry;
    if (entry?.is_remote === true) entry.remote_server.name = name;
    else if (entry) entry.server.name = name;
  }
}

export const entryName = (server: CatalogServer): string | undefined =>
  server.entry === undefined ? undefined : server.entry.is_remote ? server.entry.remote_server.name : server.entry.server.name;

function fromUpstream(items: unknown[], info: { version: string; last_updated: string; skills: unknown; plugins: unknown }): Catalog {
  const servers = byName(
    upstreamServers(items).map(({ record, official }) => {
      const withMeta = { ...record, _meta: { ...(isJsonObject(record._meta) ? record._meta : {}), [OFFICIAL_META]: official } };
      const entry = entryFromServerJson(withMeta);
      const tags = entry === undefined ? publisherExtras(record, '').tags : undefined;
      return {
        fullName: text(record.name),
        record,
        tags: entry ? (entry.is_remote ? entry.remote_server.tags : entry.server.tags) : Array.isArray(tags) ? tags.filter((tag): tag is string => typeof tag === 'string') : [],
        entry,
      };
    }),
    (server) => server.fullName,
  );
  assignNames(servers);
  return { version: info.version, last_updated: info.last_updated, servers, groups: [], skills: latestPackages(info.skills), plugins: latestPackages(info.plugins) };
}

function localEntries(document: Json): CatalogServer[] {
  const servers: CatalogServer[] = [];
  for (const [name, raw] of Object.entries(isJsonObject(document.servers) ? document.servers : {})) {
    if (!isJsonObject(raw)) continue;
    const entry = containerEntry(name, raw);
    servers.push({ fullName: name, record: serverJsonOfContainer(entry), tags: entry.tags, entry: { is_remote: false, server: entry } });
  }
  for (const [name, raw] of Object.entries(isJsonObject(document.remote_servers) ? document.remote_servers : {})) {
    if (!isJsonObject(raw)) continue;
    const entry = remoteEntry(name, raw);
    servers.push({ fullName: name, record: serverJsonOfRemote(entry), tags: entry.tags, entry: { is_remote: true, remote_server: entry } });
  }
  return byName(servers, (server) => server.fullName);
}

function fromLocalForm(document: Json, lastUpdated: string): Catalog {
  const servers = localEntries(document);
  assignNames(servers);
  const groups = objects(document.groups).map((group) => {
    const members = localEntries(group);
    const pick = <T>(remote: boolean) =>
      Object.fromEntries(
        members.flatMap((member) => {
          const entry = member.entry;
          if (entry === undefined || entry.is_remote !== remote) return [];
          return [[member.fullName, entry.is_remote ? entry.remote_server : entry.server] as [string, T]];
        }),
      );
    return { name: text(group.name), description: text(group.description), servers: pick<ContainerServerEntry>(false), remote_servers: pick<RemoteServerEntry>(true) };
  });
  return { version: text(document.version), last_updated: text(document.last_updated) || lastUpdated, servers, groups, skills: [], plugins: [] };
}

/**
 * Reads any catalog document the runtime accepts: an array of server.json (or of registry responses),
 * `{servers: [...]}` (an MCP Registry answer), the upstream file form `{version, meta, data: {servers,
 * skills, plugins}}`, or the local registry form. `lastUpdated` fills in when the document has none.
 */
export function parseCatalog(document: unknown, lastUpdated: string): Catalog {
  if (Array.isArray(document)) return fromUpstream(document, { version: '', last_updated: lastUpdated, skills: [], plugins: [] });
  if (!isJsonObject(document)) throw new NotACatalogError('the document is not a JSON object or array');
  const data = isJsonObject(document.data) ? document.data : undefined;
  if (data && Array.isArray(data.servers)) {
    const meta = isJsonObject(document.meta) ? document.meta : {};
    return fromUpstream(data.servers, { version: text(document.version), last_updated: text(meta.last_updated) || lastUpdated, skills: data.skills, plugins: data.plugins });
  }
  if (Array.isArray(document.servers)) {
    return fromUpstream(document.servers, { version: text(document.version), last_updated: text(document.last_updated) || lastUpdated, skills: document.skills, plugins: document.plugins });
  }
  if (isJsonObject(document.servers) || isJsonObject(document.remote_servers)) return fromLocalForm(document, lastUpdated);
  throw new NotACatalogError('the document has no servers list or map');
}
