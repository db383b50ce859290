import type { IdentityResolver } from '../identity/resolver.js';
import type { GatewayService } from './service.js';

/** Any authenticated caller: one holding a role, or one with a directory identity (401 when it has none or is inactive). */
export function authorizeGateways(service: GatewayService, identity: IdentityResolver): GatewayService {
  return {
    async list(actor, baseUrl) {
      if (actor.roles.size === 0) await identity.resolve(actor);
      return service.list(actor, baseUrl);
    },
  };
}
