import type { PlatformAccess } from '../identity/access.js';
import type { ClientConfigService } from './service.js';

/** The envelope and the JWKS are public; reading the directives takes admin or auditor, replacing them admin. */
export function authorizeClientConfig(service: ClientConfigService, access: PlatformAccess): ClientConfigService {
  return {
    ...service,
    getDirectives(actor) {
      access.require(actor, ['auditor'], 'reading the configuration directives');
      return service.getDirectives(actor);
    },
    putDirectives(actor, body, ifMatch) {
      access.require(actor, [], 'replacing the configuration directives');
      return service.putDirectives(actor, body, ifMatch);
    },
  };
}
