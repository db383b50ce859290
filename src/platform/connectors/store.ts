import { sql, type Kysely, type Selectable } from 'kysely';
import type { PlatformDatabase } from '../db.js';
import type { Keyset } from '../directory/store.js';
import type { ConnectorsTable } from './tables.js';

export type ConnectorRow = Selectable<ConnectorsTable>;
type Db = Kysely<PlatformDatabase>;

export async function findConnector(db: Db, gatewayId: string, id: string, options: { lock?: boolean } = {}): Promise<ConnectorRow | undefined> {
  const query = db.selectFrom('connectors').selectAll().where('gateway_id', '=', gatewayId).where('id', '=', id);
  return options.lock ? query.forUpdate().executeTakeFirst() : query.executeTakeFirst();
}

/** Which of the gateway's unique keys another connector (than `exceptId`) already holds, in the order the 409 names them. */
export async function takenKeys(db: Db, gatewayId: string, keys: { name: string; toolPrefix: string; endpointKey: string }, exceptId?: string): Promise<ConnectorRow[]> {
  let query = db
    .selectFrom('connectors')
    .selectAll()
    .where('gateway_id', '=', gatewayId)
    .where(sql<boolean>`(lower(name) = lower(${keys.name}) or tool_prefix = ${keys.toolPrefix} or endpoint_key = ${keys.endpointKey})`);
  if (exceptId !== undefined) query = query.where('id', '<>', exceptId);
  return query.execute();
}

/** A page by name then id; a `before` page comes in reverse (see directory `inOrder`). */
export async function listConnectors(db: Db, gatewayId: string, page: Keyset): Promise<ConnectorRow[]> {
  let query = db.selectFrom('connectors').selectAll().where('gateway_id', '=', gatewayId);
  if (page.after) query = query.where(sql<boolean>`(name, id) > (${page.after[0]}, ${page.after[1]}::uuid)`);
  if (page.before) query = query.where(sql<boolean>`(name, id) < (${page.before[0]}, ${page.before[1]}::uuid)`);
  const direction = page.before ? 'desc' : 'asc';
  return query.orderBy('name', direction).orderBy('id', direction).limit(page.limit + 1).execute();
}

/** Every connector of every gateway (the connector gateway's read model). */
export async function allConnectors(db: Db): Promise<ConnectorRow[]> {
  return db.selectFrom('connectors').selectAll().orderBy('gateway_id').orderBy('name').execute();
}

export async function providerExists(db: Db, id: string): Promise<boolean> {
  // the share lock makes a concurrent delete of the provider wait for this write (and then meet the foreign key)
  return (await db.selectFrom('connector_identity_providers').select('id').where('id', '=', id).forShare().executeTakeFirst()) !== undefined;
}

export async function connectorsUsingProvider(db: Db, providerId: string): Promise<Pick<ConnectorRow, 'id' | 'name' | 'gateway_id'>[]> {
  return db.selectFrom('connectors').select(['id', 'name', 'gateway_id']).where('provider_id', '=', providerId).orderBy('name').execute();
}

export async function insertConnector(trx: Db, row: ConnectorRow): Promise<void> {
  await trx.insertInto('connectors').values({ ...row, auth: JSON.stringify(row.auth) }).execute();
}

export async function updateConnector(trx: Db, row: ConnectorRow): Promise<void> {
  // id, gateway_id, origin, source_* and created_at never change
  await trx
    .updateTable('connectors')
    .set({
      name: row.name,
      tool_prefix: row.tool_prefix,
      endpoint: row.endpoint,
      endpoint_key: row.endpoint_key,
      transport: row.transport,
      auth: JSON.stringify(row.auth),
      provider_id: row.provider_id,
      description: row.description,
      version: row.version,
      icon_url: row.icon_url,
      repository_url: row.repository_url,
      support_url: row.support_url,
      allow_private_ips: row.allow_private_ips,
      status: row.status,
      updated_at: row.updated_at,
    })
    .where('id', '=', row.id)
    .execute();
}

export async function deleteConnector(trx: Db, id: string): Promise<void> {
  await trx.deleteFrom('connectors').where('id', '=', id).execute();
}
