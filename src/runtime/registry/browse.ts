import { NotFoundError } from '../../core/errors.js';
import { buildTextIndex, GRAM_LENGTH, type TextIndex } from '../../core/text-index.js';
import { entryName, type Catalog, type CatalogServer } from './catalog.js';
import type { Static } from '@sinclair/typebox';
import type { BrowseMetadataSchema, BrowseQuery } from './schemas.js';
import { text, type Json } from './server-json.js';
import { isJsonObject } from '../../core/json-object.js';

export interface BrowsePage {
  metadata: Static<typeof BrowseMetadataSchema>;
  items: Json[];
}

/** A browse list with what `q` is matched against, built once per catalog read. */
export interface BrowseIndex {
  records: Json[];
  /** Per record, its searched fields joined and lower-cased. */
  texts: string[];
  grams: TextIndex;
}

function indexOf(records: Json[], fields: string[][]): BrowseIndex {
  const texts = fields.map((list) => list.join('\n').toLowerCase());
  return { records, texts, grams: buildTextIndex(texts) };
}

export const indexServers = (catalog: Catalog): BrowseIndex =>
  indexOf(
    catalog.servers.map((server) => server.record),
    catalog.servers.map((server) => [server.fullName, text(server.record.title), text(server.record.description), ...server.tags]),
  );

/**
 * Every word of `q` must occur (case-insensitively) in one of the fields; an empty `q` matches all.
 * The rarest gram among the words names the records worth checking; words too short for the index
 * are checked on those, or on every record when no word is long enough.
 */
function matching(index: BrowseIndex, q: string | undefined): Json[] {
  const words = (q ?? '').toLowerCase().split(/\s+/).filter(Boolean);
  let candidates: ArrayLike<number> | undefined;
  for (const word of words) {
    const found = word.length >= GRAM_LENGTH ? index.grams.candidates(word) : undefined;
    if (found !== undefined && (candidates === undefined || found.length < candidates.length)) candidates = found;
  }
  const found: Json[] = [];
  const check = (ordinal: number) => {
    const haystack = index.texts[ordinal] ?? '';
    if (words.every((word) => haystack.includes(word))) found.push(index.records[ordinal] as Json);
  };
  if (candidates === undefined) for (let ordinal = 0; ordinal < index.records.length; ordinal++) check(ordinal);
  else for (let at = 0; at < candidates.length; at++) check(candidates[at] ?? 0);
  return found;
}

function pageOf(items: Json[], query: BrowseQuery): BrowsePage {
  const start = (query.page - 1) * query.limit;
  return { metadata: { limit: query.limit, page: query.page, total: items.length }, items: items.slice(start, start + query.limit) };
}

export const browse = (index: BrowseIndex, query: BrowseQuery): BrowsePage => pageOf(matching(index, query.q), query);

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
  const tags = isJsonObject(record.metadata) ? record.metadata.tags : undefined;
  return Array.isArray(tags) ? tags.filter((tag): tag is string => typeof tag === 'string') : [];
};

export const indexPackages = (records: Json[]): BrowseIndex =>
  indexOf(
    records,
    records.map((record) => [`${text(record.namespace)}/${text(record.name)}`, text(record.title), text(record.description), ...tagsOf(record)]),
  );

export function browsePackage(records: Json[], kind: 'skill' | 'plugin', namespace: string, name: string): Json {
  const found = records.find((record) => text(record.namespace) === namespace && text(record.name) === name);
  if (!found) throw new NotFoundError(`no ${kind} named "${namespace}/${name}" in the registry`);
  return found;
}
