import { createHash } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { Clock } from '../../core/clock.js';
import { UnavailableError } from '../../core/errors.js';
import type { RuntimePaths } from '../paths.js';
import { readJsonFile, writeFileAtomic } from '../state/files.js';
import { fetchApiCatalog } from './api-source.js';
import { parseCatalog, NotACatalogError, type Catalog } from './catalog.js';
import { BadGatewayError } from './errors.js';
import type { FetchJson } from './fetcher.js';
import type { ActiveSource } from './settings.js';
import { isJsonObject } from '../../core/json-object.js';

export const CACHE_TTL_MS = 60 * 60 * 1000;

interface Loaded {
  key: string;
  catalog: Catalog;
  /** Remote sources: when it was fetched (clock milliseconds). */
  fetchedAt: number;
  /** File sources: what the file looked like when read, to notice a change. */
  stamp: string;
}

const keyOf = (source: ActiveSource): string => `${source.type}:${source.location}`;
const isRemote = (source: ActiveSource): source is Extract<ActiveSource, { type: 'api' | 'url' }> => source.type === 'api' || source.type === 'url';

/** Reads and parses a catalog file; a file that is not a catalog throws NotACatalogError. */
export async function readCatalogFile(path: string): Promise<{ catalog: Catalog; stamp: string }> {
  const info = await stat(path);
  const stamp = `${String(info.mtimeMs)}:${String(info.size)}`;
  let document: unknown;
  try {
    document = JSON.parse(await readFile(path, 'utf8'));
  } catch (error) {
    if (error instanceof SyntaxError) throw new NotACatalogError(`${path} is not JSON`);
    throw error;
  }
  return { catalog: parseCatalog(document, info.mtime.toISOString()), stamp };
}

export interface CatalogSource {
  /** The catalog of a source: cached when remote (1 h), re-read when a file changed; stale data beats none. */
  get: (source: ActiveSource) => Promise<Catalog>;
  /** Fetches or reads the source now, bypassing the cache; failures propagate (400, 502, 504) and keep the cache. */
  reload: (source: ActiveSource) => Promise<Catalog>;
}

/**
 * Keeps the one catalog in force. Remote catalogs are cached in memory and under the cache directory
 * for an hour, so a restarted runtime does not fetch again; loads of the same source are shared.
 */
export function createCatalogSource(options: { paths: RuntimePaths; fetchJson: FetchJson; clock: Clock; logger: Logger; ttlMs?: number }): CatalogSource {
  const { fetchJson, clock, logger } = options;
  const ttlMs = options.ttlMs ?? CACHE_TTL_MS;
  const cacheDir = join(options.paths.cache, 'registry');
  const cacheFile = (key: string) => join(cacheDir, `${createHash('sha256').update(key).digest('hex').slice(0, 32)}.json`);
  let current: Loaded | undefined;
  const pending = new Map<string, Promise<Catalog>>();

  const fetchRemote = async (source: Extract<ActiveSource, { type: 'api' | 'url' }>): Promise<Loaded> => {
    const document = source.type === 'api' ? await fetchApiCatalog(fetchJson, source.location, source.allowPrivateIp) : await fetchJson(source.location, { allowPrivateIp: source.allowPrivateIp });
    const fetchedAt = clock.now().getTime();
    let catalog: Catalog;
    try {
      catalog = parseCatalog(document, new Date(fetchedAt).toISOString());
    } catch (error) {
      if (error instanceof NotACatalogError) throw new BadGatewayError(`${source.location} is not a catalog: ${error.message}`);
      throw error;
    }
    const key = keyOf(source);
    await writeFileAtomic(cacheFile(key), JSON.stringify({ key, fetched_at: fetchedAt, document }));
    return { key, catalog, fetchedAt, stamp: '' };
  };

  const readDiskCache = async (key: string): Promise<Loaded | undefined> => {
    try {
      const saved = await readJsonFile(cacheFile(key));
      if (!isJsonObject(saved) || saved.key !== key || typeof saved.fetched_at !== 'number') return undefined;
      return { key, catalog: parseCatalog(saved.document, new Date(saved.fetched_at).toISOString()), fetchedAt: saved.fetched_at, stamp: '' };
    } catch (error) {
      logger.warn({ err: error }, 'ignoring an unreadable registry cache file');
      return undefined;
    }
  };

  const load = async (source: ActiveSource): Promise<Loaded> => {
    if (isRemote(source)) return fetchRemote(source);
    const { catalog, stamp } = await readCatalogFile(source.location);
    return { key: keyOf(source), catalog, fetchedAt: clock.now().getTime(), stamp };
  };

  const unavailable = (source: ActiveSource, error: unknown) =>
    new UnavailableError(`the registry cannot be read from ${source.location || 'the shipped catalog'} and nothing is cached: ${error instanceof Error ? error.message : String(error)}`);

  const resolve = async (source: ActiveSource): Promise<Catalog> => {
    const key = keyOf(source);
    if (current?.key !== key) current = isRemote(source) ? await readDiskCache(key) : undefined;
    const now = clock.now().getTime();
    if (current && isRemote(source) && now - current.fetchedAt < ttlMs) return current.catalog;
    if (current && !isRemote(source)) {
      const info = await stat(source.location).catch(() => undefined);
      if (info && `${String(info.mtimeMs)}:${String(info.size)}` === current.stamp) return current.catalog;
    }
    try {
      current = await load(source);
      return current.catalog;
    } catch (error) {
      if (!current) throw unavailable(source, error);
      logger.warn({ err: error, source: source.type }, 'registry source unreadable, serving the last catalog read');
      return current.catalog;
    }
  };

  const shared = (source: ActiveSource, run: () => Promise<Catalog>): Promise<Catalog> => {
    const key = keyOf(source);
    const running = pending.get(key);
    if (running) return running;
    const started = run().finally(() => pending.delete(key));
    pending.set(key, started);
    return started;
  };

  return {
    get: (source) => shared(source, () => resolve(source)),
    reload: async (source) => {
      const loaded = await load(source);
      current = loaded;
      return loaded.catalog;
    },
  };
}
