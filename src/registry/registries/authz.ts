import { InvalidInputError } from '../../core/errors.js';
import type { AccessPolicy } from '../identity/policy.js';
import { visibilityGuards, visibleItems } from '../identity/visibility.js';
import type { SourcesService } from '../sources/service.js';
import type { RegistriesService } from './service.js';

export function authorizeRegistries(inner: RegistriesService, sources: SourcesService, policy: AccessPolicy): RegistriesService {
  const { visible, checkReplace } = visibilityGuards('registry', (caller, name) => inner.get(caller, name), policy);
  return {
    validate: (name, body) => inner.validate(name, body),
    async list(caller, query) {
      return visibleItems(await inner.list(caller, query), (registry) => policy.canSee(caller, registry.claims));
    },
    get: visible,
    async put(caller, name, body) {
      await inner.validate(name, body);
      policy.requireRole(caller, 'manageRegistries');
      // a source the caller cannot see does not exist for it, here as everywhere
      for (const sourceName of body.sources ?? []) {
        if (!policy.canSee(caller, (await sources.get(caller, sourceName)).claims)) throw new InvalidInputError(`sources: no source named "${sourceName}"`);
      }
      await checkReplace(caller, name, body.claims);
      return inner.put(caller, name, body);
    },
    async delete(caller, name) {
      policy.requireRole(caller, 'manageRegistries');
      await visible(caller, name);
      await inner.delete(caller, name);
    },
    async entries(caller, name, query) {
      policy.requireRole(caller, 'manageRegistries');
      await visible(caller, name);
      return visibleItems(await inner.entries(caller, name, query), (entry) => policy.canSee(caller, entry.claims));
    },
  };
}
