import type { Kysely, Selectable } from 'kysely';
import type { PlatformDatabase } from '../db.js';
import type { ConnectorPoliciesTable, PolicyMode } from './tables.js';

export type PolicyRow = Selectable<ConnectorPoliciesTable>;
type Db = Kysely<PlatformDatabase>;

export interface PolicyConnectorRow {
  id: string;
  name: string;
  gateway_id: string;
}

/** The connector a policy belongs to (policies are addressed by connector id alone); `lock` holds off its delete. */
export async function findPolicyConnector(db: Db, id: string, options: { lock?: boolean } = {}): Promise<PolicyConnectorRow | undefined> {
  const query = db.selectFrom('connectors').select(['id', 'name', 'gateway_id']).where('id', '=', id);
  return options.lock ? query.forShare().executeTakeFirst() : query.executeTakeFirst();
}

export async function findPolicy(db: Db, connectorId: string, options: { lock?: boolean } = {}): Promise<PolicyRow | undefined> {
  const query = db.selectFrom('connector_policies').selectAll().where('connector_id', '=', connectorId);
  return options.lock ? query.forUpdate().executeTakeFirst() : query.executeTakeFirst();
}

/** The granted groups by name, then id. */
export async function grantedGroups(db: Db, connectorId: string): Promise<{ id: string; name: string }[]> {
  return db
    .selectFrom('connector_policy_groups')
    .innerJoin('groups', 'groups.id', 'connector_policy_groups.group_id')
    .select(['groups.id', 'groups.name'])
    .where('connector_policy_groups.connector_id', '=', connectorId)
    .orderBy('groups.name')
    .orderBy('groups.id')
    .execute();
}

/** Which of `ids` are directory groups; the share lock keeps them until the grant commits. */
export async function existingGroups(db: Db, ids: readonly string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await db.selectFrom('groups').select('id').where('id', 'in', ids).forShare().execute();
  return new Set(rows.map((row) => row.id));
}

/** Creates the default policy row when there is none, and locks the row for the write. */
export async function lockPolicy(trx: Db, connectorId: string, now: Date): Promise<PolicyRow> {
  await trx
    .insertInto('connector_policies')
    .values({ connector_id: connectorId, mode: 'structured', document: null, updated_at: now })
    .onConflict((conflict) => conflict.column('connector_id').doNothing())
    .execute();
  const row = await findPolicy(trx, connectorId, { lock: true });
  if (!row) throw new Error(`the policy row of connector ${connectorId} vanished inside its transaction`);
  return row;
}

export async function replaceGroups(trx: Db, connectorId: string, groupIds: readonly string[]): Promise<void> {
  await trx.deleteFrom('connector_policy_groups').where('connector_id', '=', connectorId).execute();
  if (groupIds.length > 0) await trx.insertInto('connector_policy_groups').values(groupIds.map((group_id) => ({ connector_id: connectorId, group_id }))).execute();
}

/** False when the group was not granted. */
export async function removeGroup(trx: Db, connectorId: string, groupId: string): Promise<boolean> {
  const result = await trx.deleteFrom('connector_policy_groups').where('connector_id', '=', connectorId).where('group_id', '=', groupId).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

export async function writePolicy(trx: Db, connectorId: string, fields: { mode: PolicyMode; document: string | null; now: Date }): Promise<void> {
  await trx.updateTable('connector_policies').set({ mode: fields.mode, document: fields.document, updated_at: fields.now }).where('connector_id', '=', connectorId).execute();
}

/** What a decision needs of a connector's policy: its mode, its document (document mode) and granted group ids. */
export async function readDecisionPolicy(db: Db, connectorId: string): Promise<{ mode: PolicyMode; document: string; groupIds: string[] }> {
  const [row, groups] = await Promise.all([
    findPolicy(db, connectorId),
    db.selectFrom('connector_policy_groups').select('group_id').where('connector_id', '=', connectorId).execute(),
  ]);
  return { mode: row?.mode ?? 'structured', document: row?.document ?? '', groupIds: groups.map((group) => group.group_id) };
}
