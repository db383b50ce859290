import type { PlatformAccess } from '../identity/access.js';
import type { KeyService } from './service.js';

const VERBS = { disable: 'disabling', enable: 're-enabling', revoke: 'revoking' } as const;

/**
 * Own keys need only a directory identity (the service resolves it, and finds only the caller's keys);
 * every key may be read by admin and auditor, and changed by admin.
 */
export function authorizeKeys(service: KeyService, access: PlatformAccess): KeyService {
  return {
    ...service,
    list(actor, query) {
      access.require(actor, ['auditor'], 'listing every user\'s keys');
      return service.list(actor, query);
    },
    get(actor, id) {
      access.require(actor, ['auditor'], 'reading any user\'s key');
      return service.get(actor, id);
    },
    change(actor, id, action) {
      access.require(actor, [], `${VERBS[action]} any user's key`);
      return service.change(actor, id, action);
    },
  };
}
