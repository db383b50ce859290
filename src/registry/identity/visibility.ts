import type { Caller } from '../../core/auth/caller.js';
import { ForbiddenError, NotFoundError } from '../../core/errors.js';
import type { Page } from '../http/paging.js';
import type { Claims } from '../tables.js';
import type { AccessPolicy } from './policy.js';

/*
 * Authorization wraps each admin service with the same interface. Order of checks on writes: the
 * inner service's shape and value rules (400), then roles and claims (403, or 404 for what the caller
 * cannot see: invisible means absent), then the inner service's conflicts (409).
 */

export function notASubset(): ForbiddenError {
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
export function visibilityGuards<T extends { claims: Claims }>(kind: string, get: (caller: Caller, name: string) => Promise<T>, policy: AccessPolicy) {
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
export function visibleItems<T>(page: Page<T>, canSee: (item: T) => boolean): Page<T> {
  return { items: page.items.filter(canSee), nextCursor: page.nextCursor };
}
