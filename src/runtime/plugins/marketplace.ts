import { InvalidInputError, NotFoundError } from '../../core/errors.js';

/** One entry of a marketplace's `plugins`, as far as installing it needs. */
export interface MarketplaceEntry {
  name: string;
  source: unknown;
  strict?: boolean;
  [field: string]: unknown;
}

export interface Marketplace {
  name: string;
  renames: Record<string, string>;
  plugins: MarketplaceEntry[];
}

/** Where an entry's files are: a folder inside the marketplace, or a `git://` reference. */
export type EntrySource = { relative: string } | { reference: string };

// fields of an entry that describe its place in the marketplace, not the plugin
const LISTING_FIELDS = new Set(['source', 'strict', 'category', 'tags']);
const MAX_RENAMES = 10;

export function parseMarketplace(text: string, where: string): Marketplace {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new InvalidInputError(`${where} is not JSON; a marketplace is a .claude-plugin/marketplace.json file`);
  }
  const value = (typeof raw === 'object' && raw !== null ? raw : {}) as Record<string, unknown>;
  if (!Array.isArray(value.plugins)) throw new InvalidInputError(`${where} has no plugins list; it is not a plugin marketplace`);
  const renames = (typeof value.renames === 'object' && value.renames !== null ? value.renames : {}) as Record<string, string>;
  const plugins = (value.plugins as unknown[]).filter((entry): entry is MarketplaceEntry => typeof (entry as Partial<MarketplaceEntry> | null)?.name === 'string');
  return { name: typeof value.name === 'string' ? value.name : '', renames, plugins };
}

/** The entry for `name`, after following the marketplace's `renames` (a renamed plugin keeps answering to its old name). */
export function findEntry(marketplace: Marketplace, name: string, where: string): MarketplaceEntry {
  let current = name;
  for (let step = 0; step < MAX_RENAMES && marketplace.renames[current] !== undefined; step++) current = marketplace.renames[current] ?? current;
  const entry = marketplace.plugins.find((plugin) => plugin.name === current);
  if (entry === undefined) throw new NotFoundError(`marketplace ${where} lists no plugin ${name}`);
  return entry;
}

/** `https://host/path(.git)` or `git://host/path` → `git://host/path`, the form the git resolver fetches. */
function gitLocation(url: unknown, name: string): string {
  if (typeof url !== 'string') throw new InvalidInputError(`plugin ${name}: its source names no url`);
  const match = /^(?:https|git):\/\/([^/@]+)\/(.+?)\/?$/.exec(url);
  if (match === null) throw new InvalidInputError(`plugin ${name}: source url ${url} is not an https:// or git:// repository`);
  return `git://${match[1]}/${match[2]}`;
}

export function entrySource(entry: MarketplaceEntry): EntrySource {
  const { source, name } = entry;
  if (typeof source === 'string') {
    if (!source.startsWith('./')) throw new InvalidInputError(`plugin ${name}: source ${source} must start with ./ (a folder of the marketplace)`);
    const relative = source.slice(2).replace(/\/+$/, '');
    if (relative.split('/').includes('..')) throw new InvalidInputError(`plugin ${name}: source ${source} leaves the marketplace`);
    return { relative };
  }
  const form = (source ?? {}) as Record<string, unknown>;
  const pin = typeof form.sha === 'string' ? form.sha : typeof form.ref === 'string' ? form.ref : '';
  const path = typeof form.path === 'string' ? form.path.replace(/^\.?\/+|\/+$/g, '') : '';
  let location: string;
  if (form.source === 'url' || form.source === 'git-subdir') location = gitLocation(form.url, name);
  else if (form.source === 'github' && typeof form.repo === 'string') location = `git://github.com/${form.repo}`;
  else throw new InvalidInputError(`plugin ${name}: source kind ${String(form.source)} is not supported; use ./folder, url, git-subdir or github`);
  return { reference: `${location}${pin === '' ? '' : `@${pin}`}${path === '' ? '' : `#${path}`}` };
}

/** What a `strict: false` entry puts in place of the plugin's own `plugin.json`. */
export function entryManifest(entry: MarketplaceEntry): string {
  const manifest = Object.fromEntries(Object.entries(entry).filter(([field]) => !LISTING_FIELDS.has(field)));
  return `${JSON.stringify(manifest, null, 2)}\n`;
}
