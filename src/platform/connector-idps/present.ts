import type { IdentityProvider, Oauth2Config, OidcConfig } from './schemas.js';
import type { ProviderRow } from './store.js';

/** The provider as the API shows it: the block of its type, the other null; references, never secret values. */
export function presentProvider(row: ProviderRow): IdentityProvider {
  const config = row.config;
  return {
    created_at: row.created_at.toISOString(),
    id: row.id,
    name: row.name,
    oauth2_config: row.provider_type === 'oauth2' ? (config as Oauth2Config) : null,
    oidc_config: row.provider_type === 'oidc' ? (config as OidcConfig) : null,
    provider_type: row.provider_type,
    registration_mode: config.dcr === null ? 'static' : 'dcr',
    source: row.source,
    updated_at: row.updated_at.toISOString(),
  };
}
