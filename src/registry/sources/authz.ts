import type { Caller } from '../../core/auth/caller.js';
import { ForbiddenError, InvalidInputError, NotFoundError } from '../../core/errors.js';
import type { Page } from '../http/paging.js';
import type { Claims } from '../tables.js';
import { readPublishedRecord, type EntriesService } from '../entries/service.js';
import type { RegistriesService } from '../registries/service.js';
import type { SourcesService } from './service.js';
import type { AccessPolicy } from '../identity/policy.js';

/*
 * Authorization wraps each admin service with the same interface. Order of checks on writes: the
 * inner service's shape and value rules (400), then roles and claims (403, or 404 for what the caller
 * cannot see: invisible means absent), then the inner service's conflicts (409).
 */

function notASubset(): ForbiddenError {
  return new ForbiddenError('the claims must be a subset of your own: your token does not hold every value given');
}

async function orUndefined<T>(promise: Promise<T>): Promise<T | undefined> {
  try {
    return await promise;
  } catch (error) {
    if (error instanceof NotFoundError) return undefined;
    throw error;
  }
}

/**
 * The visibility checks both resource kinds share: `visible` answers 404 for what the caller cannot
 * see, `checkReplace` does the same for the existing resource of a PUT (absent is a create) and
 * applies the subset rule to the incoming claims.
 */
function visibilityGuards<T extends { claims: Claims }>(kind: string, get: (caller: Caller, name: string) => Promise<T>, policy: AccessPolicy) {
  const notFound = (name: string) => new NotFoundError(`${kind} "${name}" not found`);
  return {
    visible: async (caller: Caller, name: string): Promise<T> => {
      const resource = await get(caller, name);
      if (!policy.canSee(caller, resource.claims)) throw notFound(name);
      return resource;
    },
    checkReplace: async (caller: Caller, name: string, incoming: Claims | undefined): Promise<void> => {
      const existing = await orUndefined(get(caller, name));
      if (existing && !policy.canSee(caller, existing.claims)) throw notFound(name);
      if (!policy.canGrant(caller, incoming ?? {})) throw notASubset();
    },
  };
}

/** Hidden items leave the page; its cursor still follows the last item read, so no visible one is skipped. */
function visibleItems<T>(page: Page<T>, canSee: (item: T) => boolean): Page<T> {
  return { items: page.items.filter(canSee), nextCursor: page.nextCursor };
}

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

export function authorizeEntries(inner: EntriesService, policy: AccessPolicy): EntriesService {
  const authenticated = policy.mode !== 'anonymous';
  return {
    managedSourceClaims: () => inner.managedSourceClaims(),
    async publish(caller, body) {
      readPublishedRecord(body);
      const claims: Claims = body.claims ?? {};
      if (authenticated && Object.keys(claims).length === 0) {
        throw new InvalidInputError('claims: required when authentication is on; give the claims that decide who may see this entry');
      }
      policy.requireRole(caller, 'manageEntries');
      if (!policy.canGrant(caller, claims)) throw notASubset();
      const managed = await inner.managedSourceClaims();
      if (managed !== undefined && !policy.canSee(caller, managed)) throw new ForbiddenError('your token does not give access to the managed source');
      await inner.publish(caller, body);
    },
    async deleteVersion(caller, type, name, version) {
      policy.requireRole(caller, 'manageEntries');
      if (!policy.canSee(caller, await inner.getClaims(caller, type, name))) throw new NotFoundError(`no published ${type} named "${name}"`);
      await inner.deleteVersion(caller, type, name, version);
    },
    async getClaims(caller, type, name) {
      policy.requireRole(caller, 'manageEntries');
      const claims = await inner.getClaims(caller, type, name);
      if (!policy.canSee(caller, claims)) throw new ForbiddenError(`your token's claims do not give access to ${type} "${name}"`);
      return claims;
    },
    async putClaims(caller, type, name, claims) {
      policy.requireRole(caller, 'manageEntries');
      if (!policy.canSee(caller, await inner.getClaims(caller, type, name))) throw new NotFoundError(`no published ${type} named "${name}"`);
      if (!policy.canGrant(caller, claims)) throw notASubset();
      await inner.putClaims(caller, type, name, claims);
    },
  };
}
