import type { ColumnType } from 'kysely';
import type { Oauth2Config, OidcConfig } from './schemas.js';

type Timestamp = ColumnType<Date, Date, Date>;

export interface ConnectorIdentityProvidersTable {
  id: string;
  name: string;
  provider_type: 'oauth2' | 'oidc';
  /** The type's block exactly as the API shows it (defaults filled in, secret references, never values). */
  config: ColumnType<Oauth2Config | OidcConfig, string, string>;
  /** `api`: made through /v1 (the only source so far). */
  source: string;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface ConnectorIdpTables {
  connector_identity_providers: ConnectorIdentityProvidersTable;
}
