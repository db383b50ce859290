import type { Kysely } from 'kysely';
import type { PlatformDatabase } from '../db.js';

export interface ProviderIssuer {
  name: string;
  /** The OpenID issuer; null for an oauth2 provider, which names none. */
  issuerUrl: string | null;
}

export async function findProviderIssuer(db: Kysely<PlatformDatabase>, id: string): Promise<ProviderIssuer | undefined> {
  const row = await db.selectFrom('connector_identity_providers').select(['name', 'provider_type', 'config']).where('id', '=', id).executeTakeFirst();
  if (!row) return undefined;
  const issuer = row.provider_type === 'oidc' && 'issuer_url' in row.config ? row.config.issuer_url : null;
  return { name: row.name, issuerUrl: issuer };
}
