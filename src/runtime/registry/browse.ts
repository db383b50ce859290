import { NotFoundError } from '../../core/errors.js';
import { entryName, type Catalog, type CatalogServer } from './catalog.js';
import type { Static } from '@sinclair/typebox';
import type { BrowseMetadataSchema, BrowseQuery } from './schemas.js';
import { isObject, text, type Json } from './server-json.js';

export interface BrowsePage {
  metadata: Static<typeof BrowseMetadataSchema>;
  items: Json[];
}

/** Every word of `q` must occur (case-insensitively) in one of the fields; an empty `q` matches all. */
function matcher(q: string | undefined): (fields: string[]) => boolean {
  const words = (q ?? '').toLowerCase().split(/\s+/).filter(Boolean);
  return (fields) => {
    const haystack = fields.join('\n').toLowerCase();
    return words.every((word) => haystack.includes(word));
  };
}

function pageOf(items: Json[], query: BrowseQuery): BrowsePage {
  const start = (query.page - 1) * query.limit;
  return { metadata: { limit: query.limit, page: query.page, total: items.length }, items: items.slice(start, start + query.limit) };
}

export function browseServers(catalog: Catalog, query: BrowseQuery): BrowsePage {
  const match = matcher(query.q);
  const found = catalog.servers.filter((server) => match([server.fullName, text(server.record.title), text(server.record.description), ...server.tags]));
  return pageOf(
    found.map((server) => server.record),
    query,
  );
}

/** By full catalog name or by local entry name. */
export function findCatalogServer(catalog: Catalog, name: string): CatalogServer | undefined {
  return catalog.servers.find((server) => entryName(server) === name) ?? catalog.servers.find((server) => server.fullName === name);
}

export function browseServer(catalog: Catalog, name: string): Json {
  const server = findCatalogServer(catalog, name);
  if (!server) throw new NotFoundError(`no server named "${name}" in the registry`);
  return server.record;
}

const tagsOf = (record: Json): string[] => {
  const tags = isObject(record.metadata) ? record.metadata.tags : undefined;
  return Array.isArray(tags) ? tags.filter((tag): tag is string => typeof tag === 'string') : [];
};

export function browsePackages(records: Json[], query: BrowseQuery): BrowsePage {
  const match = matcher(query.q);
  return pageOf(
    records.filter((record) => match([`${text(record.namespace)}/${text(record.name)}`, text(record.title), text(record.description), ...tagsOf(record)])),
    query,
  );
}

export function browsePackage(records: Json[], kind: 'skill' | 'plugin', namespace: string, name: string): Json {
  const found = records.find((record) => text(record.namespace) === namespace && text(record.name) === name);
  if (!found) throw new NotFoundError(`no ${kind} named "${namespace}/${name}" in the registry`);
  return found;
}
