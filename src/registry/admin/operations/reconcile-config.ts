import { sql, type Transaction } from 'kysely';
import { canonicalJson } from '../../../core/canonical-json.js';
import { ConfigError } from '../../../core/config/load.js';
import type { RegistryConfig } from '../../config.js';
import type { RegistryDatabase } from '../../db.js';
import { markCatalogChanged } from '../../sync/operations/write-source-entries.js';
import * as registries from '../registries-store.js';
import { sourceValues } from '../sources-service.js';
import * as sources from '../sources-store.js';

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
  if (problems.length > 0) throw new ConfigError(problems);

  for (const [name, row] of storedRegistries) {
    if (row.creation_type === 'CONFIG' && !fileRegistries.has(name)) {
      await registries.deleteRegistry(trx, name);
      result.deleted.push(`registry ${name}`);
    }
  }
  for (const source of config.sources) {
    const { name, ...definition } = source;
    const values = sourceValues(name, definition, 'CONFIG');
    const stored = storedSources.get(name);
    if (!stored) {
      await sources.insertSource(trx, values, now);
      result.created.push(`source ${name}`);
    } else if (stored.kind !== values.kind) {
      // a kind change in the file replaces the source: the old entries cannot be reinterpreted
      await sql`delete from registry_sources where source_name = ${name}`.execute(trx);
      await sources.deleteSource(trx, name);
      await sources.insertSource(trx, values, now);
      result.updated.push(`source ${name}`);
    } else if (sourceChanged(stored, values)) {
      await sources.updateSource(trx, values, now);
      result.updated.push(`source ${name}`);
    }
  }
  for (const registry of config.registries) {
    const stored = storedRegistries.get(registry.name);
    const claims = registry.claims ?? {};
    if (stored && JSON.stringify(stored.sources) === JSON.stringify(registry.sources) && canonicalJson(stored.claims) === canonicalJson(claims)) continue;
    await registries.upsertRegistry(trx, { name: registry.name, claims, sources: registry.sources, creationType: 'CONFIG' }, now);
    (stored ? result.updated : result.created).push(`registry ${registry.name}`);
  }
  for (const [name, row] of storedSources) {
    if (row.creation_type === 'CONFIG' && !fileSources.has(name)) {
      await sources.deleteSource(trx, name);
      result.deleted.push(`source ${name}`);
    }
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
