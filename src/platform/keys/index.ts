import type { PlatformContext } from '../context.js';
import { authorizeKeys } from './authz.js';
import { createGatewayAuthentication, type GatewayAuthentication, type GatewayAuthenticationOptions } from './gateway-auth.js';
import { revokeOwnerKeys } from './operations/revoke-owner-keys.js';
import { registerKeyRoutes } from './routes.js';
import { KeySchema, KeyWithSecretSchema } from './schemas.js';
import { createKeyService } from './service.js';
import { createKeyVerifier, type KeyVerifier } from './verifier.js';

/** What the gateways take from the keys feature. */
export interface KeysFeature {
  verifier: KeyVerifier;
  /** The LLM gateway's authentication step. */
  authentication: GatewayAuthentication;
}

/** Virtual API keys: the /v1/me/keys and /v1/keys routes, and the in-memory verifier the gateways use. */
export async function registerKeysFeature(context: PlatformContext, options: { verifyToken: GatewayAuthenticationOptions['verifyToken'] }): Promise<KeysFeature> {
  const { http, db, clock, ids, audit, access, identity, changes, logger } = context;
  http.addSchema(KeySchema);
  http.addSchema(KeyWithSecretSchema);
  http.decorateRequest('gatewayPrincipal', null);
  const verifier = createKeyVerifier({ db, changes, clock, logger });
  const service = createKeyService({ db, clock, ids, audit, identity, changes, afterWrite: () => verifier.refresh() });
  registerKeyRoutes(http, { service: authorizeKeys(service, access), access });

  context.hooks.userDeleted.push(async (trx, userId, actor) => {
    await revokeOwnerKeys(trx, userId, { audit, changes, actor, actorUserId: null, now: clock.now() });
  });

  await verifier.load();
  // writes committed between the load and the change feed's first reading are read once it has one
  context.lifecycle.onStart(() => void changes.check().then(() => verifier.refresh()).catch(() => undefined));
  return { verifier, authentication: createGatewayAuthentication({ verifier, verifyToken: options.verifyToken }) };
}
