import type { Kysely } from 'kysely';
import type { PlatformDatabase } from '../db.js';

export interface EndpointHolder {
  id: string;
  name: string;
  endpoint_key: string;
}

/** The gateway's connectors whose normalised endpoint is one of `keys`, by name then id. */
export async function connectorsAt(db: Kysely<PlatformDatabase>, gatewayId: string, keys: readonly string[]): Promise<EndpointHolder[]> {
  if (keys.length === 0) return [];
  return db
    .selectFrom('connectors')
    .select(['id', 'name', 'endpoint_key'])
    .where('gateway_id', '=', gatewayId)
    .where('endpoint_key', 'in', [...new Set(keys)])
    .orderBy('name')
    .orderBy('id')
    .execute();
}
