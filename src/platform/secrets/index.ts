import type { PlatformContext } from '../context.js';
import { authorizeManagedSecrets } from './authz.js';
import { loadSecretKey } from './cipher.js';
import { createManagedSecrets, type ManagedSecrets } from './reader.js';
import { registerManagedSecretRoutes } from './routes.js';
import { ManagedSecretSchema } from './schemas.js';
import { createManagedSecretService } from './service.js';

export type { ManagedSecrets, SecretOwner, SecretReference } from './reader.js';

/** Managed secrets: the /v1/managed-secrets routes, and the reader other features use them through. */
export async function registerManagedSecretsFeature(context: PlatformContext): Promise<ManagedSecrets> {
  const { http, db, clock, ids, audit, access, config, logger } = context;
  const key = await loadSecretKey(config.secrets.keyFile);
  if (!key.usable) logger.warn(`managed secrets cannot be created or replaced until this is fixed: ${key.problem}`);
  http.addSchema(ManagedSecretSchema);
  const service = createManagedSecretService({ db, clock, ids, audit, key });
  registerManagedSecretRoutes(http, { service: authorizeManagedSecrets(service, access), access });
  return createManagedSecrets({ db, key });
}
