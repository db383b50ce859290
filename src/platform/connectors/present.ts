import type { Connector } from './schemas.js';
import type { ConnectorRow } from './store.js';

/** The connector as the API shows it: every block present (null unless the type's), no secret reference. */
export function presentConnector(row: ConnectorRow): Connector {
  const auth = row.auth;
  const exchange = auth.token_exchange;
  const obo = auth.obo;
  const xaa = auth.xaa;
  return {
    allow_private_ips: row.allow_private_ips,
    auth: {
      type: auth.type,
      cloud_sts: auth.cloud_sts ?? null,
      header_injection: auth.header_injection ? { header_name: auth.header_injection.header_name } : null,
      obo: obo
        ? { audience: obo.audience, authority: obo.authority, cache_skew: obo.cache_skew, client_id: obo.client_id, provider_id: obo.provider_id, scopes: obo.scopes, tenant_id: obo.tenant_id }
        : null,
      token_exchange: exchange
        ? {
            audience: exchange.audience,
            client_id: exchange.client_id,
            client_secret_configured: exchange.client_secret !== null,
            external_token_header_name: exchange.external_token_header_name,
            provider_id: exchange.provider_id,
            scopes: exchange.scopes,
            subject_token_type: exchange.subject_token_type,
            token_url: exchange.token_url,
          }
        : null,
      upstream_inject: auth.upstream_inject ?? null,
      xaa: xaa
        ? {
            idp_client_id: xaa.idp_client_id,
            idp_token_url: xaa.idp_token_url,
            insecure_target_token_url: xaa.insecure_target_token_url,
            provider_id: xaa.provider_id,
            scopes: xaa.scopes,
            subject_token_type: xaa.subject_token_type,
            target_audience: xaa.target_audience,
            target_client_id: xaa.target_client_id,
            target_resource: xaa.target_resource,
            target_token_url: xaa.target_token_url,
          }
        : null,
    },
    created_at: row.created_at.toISOString(),
    deployment_mode: row.origin === 'kubernetes_cluster' ? 'kubernetes' : 'proxy_remote',
    description: row.description,
    endpoint: row.endpoint,
    gateway_id: row.gateway_id,
    icon_url: row.icon_url,
    id: row.id,
    name: row.name,
    origin: row.origin,
    repository_url: row.repository_url,
    source_name: row.source_name,
    source_namespace: row.source_namespace,
    status: row.status,
    support_url: row.support_url,
    transport: row.transport,
    updated_at: row.updated_at.toISOString(),
    version: row.version,
  };
}
