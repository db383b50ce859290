import { sql, type Kysely, type Selectable } from 'kysely';
import type { PlatformDatabase } from '../db.js';
import type { AiPoliciesTable } from './tables.js';

export type PolicyRow = Selectable<AiPoliciesTable>;
type Db = Kysely<PlatformDatabase>;

/** The page token key: the first replica to start writes it, every other one reads the same. */
export async function sharedPageTokenKey(db: Db, candidate: string): Promise<string> {
  await db.insertInto('ai_policy_settings').values({ id: 1, page_token_key: candidate }).onConflict((conflict) => conflict.column('id').doNothing()).execute();
  const row = await db.selectFrom('ai_policy_settings').select('page_token_key').where('id', '=', 1).executeTakeFirstOrThrow();
  return row.page_token_key;
}

/**
 * Serialises AI policy writes, so resource versions commit in the order they are drawn and a replica
 * reading "everything after version n" never skips one that commits late.
 */
export async function lockWrites(trx: Db): Promise<void> {
  await trx.selectFrom('ai_policy_settings').select('id').where('id', '=', 1).forUpdate().execute();
}

export async function nextResourceVersion(trx: Db): Promise<string> {
  const { rows } = await sql<{ version: string | number }>`select nextval('ai_policy_resource_versions') as version`.execute(trx);
  return String(rows[0]?.version);
}

export async function findPolicy(db: Db, name: string, options: { lock?: boolean } = {}): Promise<PolicyRow | undefined> {
  const query = db.selectFrom('ai_policies').selectAll().where('name', '=', name);
  return options.lock ? query.forUpdate().executeTakeFirst() : query.executeTakeFirst();
}

type PolicyValues = Omit<PolicyRow, 'labels' | 'annotations' | 'spec' | 'status'> & { labels: unknown; annotations: unknown; spec: unknown; status: unknown };

const encoded = (values: PolicyValues) => ({
  ...values,
  labels: JSON.stringify(values.labels),
  annotations: JSON.stringify(values.annotations),
  spec: JSON.stringify(values.spec),
  status: JSON.stringify(values.status),
});

/** False when a policy of that name exists. */
export async function insertPolicy(trx: Db, values: PolicyValues): Promise<boolean> {
  const inserted = await trx.insertInto('ai_policies').values(encoded(values)).onConflict((conflict) => conflict.column('name').doNothing()).returning('name').executeTakeFirst();
  return inserted !== undefined;
}

export async function updatePolicy(trx: Db, values: PolicyValues): Promise<void> {
  const { name, ...rest } = encoded(values);
  await trx.updateTable('ai_policies').set(rest).where('name', '=', name).execute();
}

export async function deletePolicy(trx: Db, name: string, resourceVersion: string): Promise<void> {
  await trx.deleteFrom('ai_policies').where('name', '=', name).execute();
  await trx.insertInto('ai_policy_deletions').values({ name, resource_version: resourceVersion }).execute();
}

/** Policies written and deleted after `version` (every one when undefined), with the highest version seen. */
export async function changesSince(db: Db, version: string | undefined): Promise<{ rows: PolicyRow[]; deletions: { name: string; resource_version: string | number }[] }> {
  const after = version ?? '0';
  const rows = await db.selectFrom('ai_policies').selectAll().where('resource_version', '>', after).orderBy('resource_version').execute();
  const deletions = version === undefined ? [] : await db.selectFrom('ai_policy_deletions').selectAll().where('resource_version', '>', after).orderBy('resource_version').execute();
  return { rows, deletions };
}
