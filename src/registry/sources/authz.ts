import type { AccessPolicy } from '../identity/policy.js';
import { visibilityGuards, visibleItems } from '../identity/visibility.js';
import type { SourcesService } from './service.js';

export function authorizeSources(inner: SourcesService, policy: AccessPolicy): SourcesService {
  const { visible, checkReplace } = visibilityGuards('source', (caller, name) => inner.get(caller, name), policy);
  return {
    validate: (name, definition) => inner.validate(name, definition),
    async list(caller, query) {
      policy.requireRole(caller, 'manageSources');
      return visibleItems(await inner.list(caller, query), (source) => policy.canSee(caller, source.claims));
    },
    async get(caller, name) {
      policy.requireRole(caller, 'manageSources');
      return visible(caller, name);
    },
    async put(caller, name, definition) {
      inner.validate(name, definition);
      policy.requireRole(caller, 'manageSources');
      await checkReplace(caller, name, definition.claims);
      return inner.put(caller, name, definition);
    },
    async delete(caller, name) {
      policy.requireRole(caller, 'manageSources');
      await visible(caller, name);
      await inner.delete(caller, name);
    },
    async entries(caller, name, query) {
      policy.requireRole(caller, 'manageSources');
      await visible(caller, name);
      return inner.entries(caller, name, query);
    },
    async requestSync(caller, name) {
      policy.requireRole(caller, 'manageSources');
      await visible(caller, name);
      await inner.requestSync(caller, name);
    },
  };
}
