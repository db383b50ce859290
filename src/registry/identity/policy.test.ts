import { describe, expect, it } from 'vitest';
import type { Caller } from '../../core/auth/caller.js';
import { ForbiddenError, UnauthenticatedError } from '../../core/errors.js';
import type { ClaimMap } from '../../core/auth/claims.js';
import { createAccessPolicy } from './policy.js';

const oauth = { resourceUrl: 'https://r.example', realm: 'mcp-registry', scopesSupported: [], publicPaths: [], providers: [] };
const roles: Record<string, ClaimMap[]> = {
  superAdmin: [{ role: 'super-admin' }],
  manageSources: [{ org: 'acme', role: 'admin' }],
  manageEntries: [{ role: 'writer' }, { team: ['platform', 'data'] }],
};
const full = createAccessPolicy({ mode: 'oauth', oauth, authz: { roles } });
const authOnly = createAccessPolicy({ mode: 'oauth', oauth });
const anonymous = createAccessPolicy({ mode: 'anonymous' });
const user = (claims: Record<string, unknown>): Caller => ({ kind: 'user', subject: 'someone', claims });

describe('access policy', () => {
  it('derives the mode from the configuration', () => {
    expect([full.mode, authOnly.mode, anonymous.mode]).toEqual(['full', 'auth-only', 'anonymous']);
  });

  it('grants roles by claim maps in full mode, and superAdmin every role', () => {
    expect(() => full.requireRole(user({ org: 'acme', role: 'admin' }), 'manageSources')).not.toThrow();
    expect(() => full.requireRole(user({ org: 'acme', role: 'admin' }), 'manageEntries')).toThrow(ForbiddenError);
    expect(() => full.requireRole(user({ team: 'data' }), 'manageEntries')).not.toThrow();
    expect(() => full.requireRole(user({ role: 'super-admin' }), 'manageRegistries')).not.toThrow();
    expect(() => full.requireRole({ kind: 'anonymous' }, 'manageSources')).toThrow(UnauthenticatedError);
  });

  it('lets every check pass in auth-only and anonymous modes', () => {
    for (const policy of [authOnly, anonymous]) {
      expect(() => policy.requireRole(user({}), 'manageSources')).not.toThrow();
      expect(policy.canSee(user({}), {})).toBe(true);
      expect(policy.canGrant(user({}), { org: 'x' })).toBe(true);
      expect(policy.visibility(user({}))).toBeUndefined();
    }
  });

  it('applies visibility and subset to claims in full mode, bypassed by superAdmin', () => {
    const writer = user({ org: 'acme', team: ['platform'] });
    expect(full.canSee(writer, { org: 'acme' })).toBe(true);
    expect(full.canSee(writer, {})).toBe(false);
    expect(full.canGrant(writer, { team: ['platform', 'data'] })).toBe(false);
    const admin = user({ role: 'super-admin' });
    expect(full.canSee(admin, {})).toBe(true);
    expect(full.canGrant(admin, { team: 'anything' })).toBe(true);
    expect(full.visibility(admin)).toBeUndefined();
    expect(full.visibility(writer)?.allows({ team: ['data', 'platform'] })).toBe(true);
  });

  it('reports the roles a token grants, and every role in auth-only mode', () => {
    expect(full.rolesOf(user({ org: 'acme', role: ['admin', 'writer'] }))).toEqual(['manageSources', 'manageEntries']);
    expect(full.rolesOf(user({ role: 'super-admin' }))).toEqual(['superAdmin']);
    expect(authOnly.rolesOf(user({}))).toEqual(['superAdmin', 'manageSources', 'manageRegistries', 'manageEntries']);
    expect(anonymous.rolesOf({ kind: 'anonymous' })).toEqual([]);
  });
});
