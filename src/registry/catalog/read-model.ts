import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Claims, EntryType, RegistryDatabase } from '../tables.js';
import { toEntryView, type EntryView, type StoredEntry } from './entry-view.js';
import { indexSource, type SourceSearchIndex } from './search-index.js';
import { catalogGeneration, listRegistryDefinitions, listSourceEntryRows, listSourceGenerations } from './store.js';
import { compareKeys, compareNewestFirst } from './versions.js';
import { canonicalJson } from '../../core/canonical-json.js';

export interface SourceSnapshot {
  name: string;
  claims: Claims;
  generation: number;
  /** Versions of each `type\0name`, newest first. */
  versions: Map<string, EntryView[]>;
  /** Built with the snapshot, so it changes exactly when the source's entries do. */
  search: Record<EntryType, SourceSearchIndex>;
}

export interface RegistryDefinition {
  name: string;
  claims: Claims;
  sources: string[];
}

/** What one registry serves: for every name, the versions of its first source that has it. */
export interface TypeView {
  /** Every served version, ordered by (name, version). */
  all: EntryView[];
  /** The latest version of every served name, ordered by name. */
  latest: EntryView[];
  /** Served versions by name, newest first. */
  byName: Map<string, EntryView[]>;
  /** The search indexes of the registry's sources: every served entry is in one of them. */
  searchIndexes: SourceSearchIndex[];
}

export interface RegistryView {
  definition: RegistryDefinition;
  types: Record<EntryType, TypeView>;
}

export interface CatalogReadModel {
  /** Brings the model up to date with the database; concurrent calls share one refresh. */
  refresh(): Promise<void>;
  registry(name: string, visible?: VisibilityRule): RegistryView | undefined;
  registryDefinition(name: string): RegistryDefinition | undefined;
  /** Watches the database for changes made elsewhere (other replicas) every `intervalMs`. */
  watch(intervalMs: number): void;
  close(): void;
  readonly generation: number;
}

/** Decides which entries a caller may see from the caller's claims. */
export interface VisibilityRule {
  callerClaims: Record<string, unknown>;
  allows(claims: Claims): boolean;
}

const ENTRY_TYPES: EntryType[] = ['server', 'skill', 'plugin'];
const VIEW_CACHE_LIMIT = 256;

/**
 * The hot read path's in-memory copy of the catalog. The database stays the truth: a generation
 * counter in `catalog_state` says when anything changed and each source's `entries_generation` says
 * which sources to reload, so a write on any replica reaches every replica's model.
 */
export function createCatalogReadModel(options: { db: Kysely<RegistryDatabase>; logger: Logger }): CatalogReadModel {
  const { db, logger } = options;
  let generation = -1;
  let sources = new Map<string, SourceSnapshot>();
  let registries = new Map<string, RegistryDefinition>();
  let views = new Map<string, RegistryView>();
  let claimKeys: string[] = [];
  /** View keys by claims object, valid for the current claimKeys (a load starts a new map). */
  let viewKeys = new WeakMap<Record<string, unknown>, string>();

  /**
   * Callers whose claims agree on every key that any entry's claims use see the same entries, so
   * they share one cached view; claims no entry mentions (exp, jti, ...) do not split the cache.
   * A verified token's claims stay one (never modified) object while its verification is cached, so
   * the key is computed once per token instead of on every request.
   */
  function viewKey(callerClaims: Record<string, unknown>): string {
    let key = viewKeys.get(callerClaims);
    if (key === undefined) {
      key = canonicalJson(claimKeys.map((name) => [name, callerClaims[name] ?? null]));
      viewKeys.set(callerClaims, key);
    }
    return key;
  }
  let inFlight: Promise<void> | undefined;
  let queued: Promise<void> | undefined;
  let timer: NodeJS.Timeout | undefined;

  async function load(): Promise<void> {
    const current = await catalogGeneration(db);
    if (current === generation) return;
    const sourceRows = await listSourceGenerations(db);
    const nextSources = new Map<string, SourceSnapshot>();
    for (const row of sourceRows) {
      const held = sources.get(row.name);
      if (held?.generation === row.entries_generation) {
        nextSources.set(row.name, { ...held, claims: row.claims });
        continue;
      }
      nextSources.set(row.name, await loadSource(db, row.name, row.claims, row.entries_generation));
    }
    const nextRegistries = await listRegistryDefinitions(db);
    sources = nextSources;
    registries = nextRegistries;
    claimKeys = collectClaimKeys(nextSources);
    viewKeys = new WeakMap();
    views = new Map();
    generation = current;
  }

  const model: CatalogReadModel = {
    refresh() {
      // a load under way may have read the database before the caller's write: queue one more
      // after it, shared by every caller that arrives meanwhile
      if (inFlight) {
        queued ??= inFlight.catch(() => undefined).then(() => {
          queued = undefined;
          return model.refresh();
        });
        return queued;
      }
      inFlight = load().finally(() => (inFlight = undefined));
      return inFlight;
    },
    registry(name, visible) {
      const definition = registries.get(name);
      if (!definition) return undefined;
      const key = `${name}\u0000${visible ? viewKey(visible.callerClaims) : '*'}`;
      let view = views.get(key);
      if (!view) {
        if (views.size >= VIEW_CACHE_LIMIT) views.clear();
        view = buildRegistryView(definition, sources, visible);
        views.set(key, view);
      }
      return view;
    },
    registryDefinition: (name) => registries.get(name),
    watch(intervalMs) {
      timer = setInterval(() => {
        model.refresh().catch((error: unknown) => logger.warn({ err: error }, 'cannot refresh the catalog read model'));
      }, intervalMs);
      timer.unref();
    },
    close() {
      if (timer) clearInterval(timer);
    },
    get generation() {
      return generation;
    },
  };
  return model;
}

async function loadSource(db: Kysely<RegistryDatabase>, name: string, claims: Claims, generation: number): Promise<SourceSnapshot> {
  const rows = await listSourceEntryRows(db, name);
  const grouped = new Map<string, StoredEntry[]>();
  for (const row of rows) {
    const key = `${row.entry_type}\u0000${row.name}`;
    const list = grouped.get(key);
    if (list) list.push(row);
    else grouped.set(key, [row]);
  }
  const versions = new Map<string, EntryView[]>();
  for (const [key, list] of grouped) {
    list.sort((a, b) => compareNewestFirst({ version: a.version, publishedAt: a.published_at }, { version: b.version, publishedAt: b.published_at }));
    versions.set(
      key,
      list.map((row, index) => toEntryView(row, index === 0)),
    );
  }
  return { name, claims, generation, versions, search: indexSource(versions) };
}

function collectClaimKeys(sources: Map<string, SourceSnapshot>): string[] {
  const keys = new Set<string>();
  for (const source of sources.values()) {
    for (const versions of source.versions.values()) for (const entry of versions) for (const key of Object.keys(entry.claims)) keys.add(key);
  }
  return [...keys].sort();
}

function byNameThenVersion(a: EntryView, b: EntryView): number {
  return compareKeys([a.name, a.version], [b.name, b.version]);
}

/**
 * Precedence: the first source of the registry that has a name owns it, and only that source's
 * versions of it are served. With a visibility rule, ownership is decided among visible entries only.
 */
function buildRegistryView(definition: RegistryDefinition, sources: Map<string, SourceSnapshot>, visible?: VisibilityRule): RegistryView {
  const owned = new Map<string, EntryView[]>();
  for (const sourceName of definition.sources) {
    const source = sources.get(sourceName);
    if (!source) continue;
    for (const [key, versions] of source.versions) {
      if (owned.has(key)) continue;
      const shown = visible ? versions.filter((entry) => visible.allows(entry.claims)) : versions;
      if (shown.length > 0) owned.set(key, shown);
    }
  }
  const indexed = definition.sources.flatMap((name) => sources.get(name) ?? []);
  const types = Object.fromEntries(
    ENTRY_TYPES.map((type) => [
      type,
      { all: [] as EntryView[], latest: [] as EntryView[], byName: new Map<string, EntryView[]>(), searchIndexes: indexed.map((source) => source.search[type]) },
    ]),
  ) as Record<EntryType, TypeView>;
  for (const versions of owned.values()) {
    const first = versions[0];
    if (!first) continue;
    const view = types[first.entryType];
    view.byName.set(first.name, versions);
    view.all.push(...versions);
    view.latest.push(versions.find((entry) => entry.isLatest) ?? first);
  }
  for (const view of Object.values(types)) {
    view.all.sort(byNameThenVersion);
    view.latest.sort(byNameThenVersion);
  }
  return { definition, types };
}
