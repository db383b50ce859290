import type { PlatformContext } from '../context.js';
import type { ManagedSecrets } from '../secrets/index.js';
import { authorizeIdentityProviders } from './authz.js';
import { registerIdentityProviderRoutes } from './routes.js';
import { IdentityProviderSchema } from './schemas.js';
import { createIdentityProviderService } from './service.js';

/** Identity providers connectors authenticate their users with: /v1/connector-identity-providers. */
export function registerConnectorIdpsFeature(context: PlatformContext, options: { secrets: ManagedSecrets }): void {
  const { http, db, clock, ids, audit, access } = context;
  http.addSchema(IdentityProviderSchema);
  const service = createIdentityProviderService({ db, clock, ids, audit, secrets: options.secrets });
  registerIdentityProviderRoutes(http, { service: authorizeIdentityProviders(service, access), access });
}
