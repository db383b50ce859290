import { sql, type Transaction } from 'kysely';
import { canonicalJson } from '../../core/canonical-json.js';
import { ConfigError } from '../../core/config/load.js';
import type { RegistryConfig } from '../config.js';
import type { RegistryDatabase } from '../tables.js';
import { markCatalogChanged } from '../sync/operations/write-source-entries.js';
import * as registries from '../registries/store.js';
import { sourceValues } from '../sources/service.js';
import * as sources from '../sources/store.js';

/** Any 64-bit number shared by every replica: starting replicas reconcile one at a time. */
const RECONCILE_LOCK = 7_461_002_311;

export interface ReconcileResult {
  created: string[];
  updated: string[];
  deleted: string[];
}

/**
 * Makes the resources defined by the configuration file (creationType CONFIG) equal to the file, and
 * leaves API-created ones alone. A file that would take over or break an API-created resource stops
 * the start with a message naming the key.
 */
export async function reconcileConfig(trx: Transaction<RegistryDatabase>, config: RegistryConfig, now: Date): Promise<ReconcileResult> {
  await sql`select pg_advisory_xact_lock(${RECONCILE_LOCK})`.execute(trx);
  const result: ReconcileResult = { created: [], updated: [], deleted: [] };
  const problems: string[] = [];
  const storedSources = new Map((await sources.listSources(trx)).map((row) => [row.name, row]));
  const storedRegistries = new Map((await registries.listRegistries(trx)).map((row) => [row.name, row]));
  const fileSources = new Set(config.sources.map((source) => source.name));
  const fileRegistries = new Set(config.registries.map((registry) => registry.name));

  config.sources.forEach((source, index) => {
    if (storedSources.get(source.name)?.creation_type === 'API') problems.push(`sources[${index}].name: "${source.name}" already exists as a source created through the API; rename one of them`);
  });
  config.registries.forEach((registry, index) => {
    if (storedRegistries.get(registry.name)?.creation_type === 'API') problems.push(`registries[${index}].name: "${registry.name}" already exists as a registry created through the API; rename one of them`);
  });
  for (const [name, row] of storedSources) {
    if (row.creation_type !== 'CONFIG' || fileSources.has(name)) continue;
    const users = (await sources.registriesUsingSource(trx, name)).filter((registry) => !(storedRegistries.get(registry)?.creation_type === 'CONFIG'));
    if (users.length > 0) problems.push(`sources: "${name}" was removed from the file but registry ${users.join(', ')} (created through the API) still uses it`);
  }
  const apiManaged = [...storedSources.values()].find((row) => row.kind === 'managed' && row.creation_type === 'API');
  config.sources.forEach((source, index) => {
    if (source.managed !== undefined && apiManaged && apiManaged.name !== source.name) {
      problems.push(`sources[${index}].managed: source "${apiManaged.name}" created through the API is already the managed source; a deployment has at most one`);
    }
  });
  if (problems.length > 0) throw new ConfigError(problems);

  for (const [name, row] of storedRegistries) {
    if (row.creation_type === 'CONFIG' && !fileRegistries.has(name)) {
      await registries.deleteRegistry(trx, name);
      result.deleted.push(`registry ${name}`);
    }
  }
  // Sources leave before any arrive, so a source that takes over the one managed slot (or a name)
  // never meets the one it replaces. Only config registries still list a removed source, and they are
  // rewritten below from the file.
  for (const [name, row] of storedSources) {
    if (row.creation_type === 'CONFIG' && !fileSources.has(name)) {
      await registries.unlinkSource(trx, name);
      await sources.deleteSource(trx, name);
      result.deleted.push(`source ${name}`);
    }
  }
  const values = config.sources.map(({ name, ...definition }) => sourceValues(name, definition, 'CONFIG'));
  // A kind change in the file replaces the source (its old entries cannot be reinterpreted), keeping
  // its place in every registry, API-created ones included.
  const replaced = new Map<string, registries.SourceLink[]>();
  for (const source of values) {
    const stored = storedSources.get(source.name);
    if (!stored || stored.kind === source.kind) continue;
    replaced.set(source.name, await registries.linksOfSource(trx, source.name));
    await registries.unlinkSource(trx, source.name);
    await sources.deleteSource(trx, source.name);
  }
  for (const source of values) {
    const stored = storedSources.get(source.name);
    const links = replaced.get(source.name);
    if (!stored || links) {
      await sources.insertSource(trx, source, now);
      if (links) await registries.restoreLinks(trx, links);
      (stored ? result.updated : result.created).push(`source ${source.name}`);
    } else if (sourceChanged(stored, source)) {
      await sources.updateSource(trx, source, now);
      result.updated.push(`source ${source.name}`);
    }
  }
  for (const registry of config.registries) {
    const stored = storedRegistries.get(registry.name);
    const claims = registry.claims ?? {};
    if (stored && JSON.stringify(stored.sources) === JSON.stringify(registry.sources) && canonicalJson(stored.claims) === canonicalJson(claims)) continue;
    await registries.upsertRegistry(trx, { name: registry.name, claims, sources: registry.sources, creationType: 'CONFIG' }, now);
    (stored ? result.updated : result.created).push(`registry ${registry.name}`);
  }
  if (result.created.length + result.updated.length + result.deleted.length > 0) await markCatalogChanged(trx);
  return result;
}

function sourceChanged(stored: sources.SourceRow, values: sources.SourceValues): boolean {
  return (
    canonicalJson(stored.config) !== canonicalJson(values.config) ||
    canonicalJson(stored.filter) !== canonicalJson(values.filter) ||
    canonicalJson(stored.claims) !== canonicalJson(values.claims) ||
    stored.sync_interval_ms !== values.syncIntervalMs ||
    stored.sync_schedule !== values.syncSchedule
  );
}
