import type { PlatformContext } from '../context.js';
import type { ManagedSecrets } from '../secrets/index.js';
import type { UpstreamCredentials } from './credentials.js';
import { createSecretValues, type ClusterSecrets } from './secret-values.js';
import { findProviderIssuer } from './store.js';
import { createTokenExchanger } from './token-exchange.js';
import { createUpstreamCredentials } from './upstream.js';

export { CredentialError, type CredentialCaller, type CredentialConnector, type UpstreamCredentials } from './credentials.js';
export type { ClusterSecretRef, ClusterSecrets } from './secret-values.js';

/**
 * The upstream credentials of the connector gateway: managed secrets, cluster secrets (through the discovery
 * cluster, when one is configured) and RFC 8693 token exchange. No routes of its own.
 */
export function registerConnectorCredentialsFeature(context: PlatformContext, options: { secrets: ManagedSecrets; clusterSecrets: ClusterSecrets | undefined }): UpstreamCredentials {
  const { db, clock } = context;
  const values = createSecretValues({ secrets: options.secrets, cluster: options.clusterSecrets });
  return createUpstreamCredentials({ providerIssuer: (id) => findProviderIssuer(db, id), values, exchanger: createTokenExchanger({ clock }) });
}
