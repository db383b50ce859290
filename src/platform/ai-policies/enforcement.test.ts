import { describe, expect, it } from 'vitest';
import type { StoredPolicy } from './backend.js';
import { admitModel, connectorAllowed, createAiEnforcement, keyOwnerClaims } from './enforcement.js';
import type { Condition } from './schemas.js';

const policy = (name: string, spec: { gateway?: string; servers?: string[]; matchers: Record<string, string>[]; description?: string }): StoredPolicy => ({
  name,
  uid: `uid-${name}`,
  resourceVersion: '1',
  generation: 1,
  creationTimestamp: '2026-11-26T00:00:00.000Z',
  labels: {},
  annotations: {},
  spec: {
    gatewayRef: { name: spec.gateway ?? 'g' },
    principalMatchers: spec.matchers.map((claims) => ({ claims })),
    ...(spec.servers && { mcpPolicy: { servers: spec.servers } }),
    ...(spec.description !== undefined && { description: spec.description }),
  },
  status: {
    appliedToSecurityPolicy: true,
    conditions: [{ type: 'Accepted', status: 'True', reason: 'Accepted', message: '', observedGeneration: 1, lastTransitionTime: '2026-11-26T00:00:00.000Z' }],
    observedGeneration: 1,
  },
});

describe('AI policy admission', () => {
  it('leaves an ungoverned gateway open, and closes it with requirePolicy', () => {
    const open = createAiEnforcement({ gateway: 'g', requirePolicy: false });
    open.load([policy('other', { gateway: 'h', matchers: [{ sub: 'a' }] })]);
    const decision = open.decide({ sub: 'nobody' });
    expect(decision).toMatchObject({ governed: false, unrestrictedModels: true, servers: { every: true } });
    expect(admitModel(decision, 'g')).toEqual({ allowed: true, aiPolicy: { decision: 'allowed', policies: [] } });

    const closed = createAiEnforcement({ gateway: 'g', requirePolicy: true });
    closed.load([]);
    const denied = admitModel(closed.decide({ sub: 'nobody' }), 'g');
    expect(denied.allowed).toBe(false);
    expect(denied.aiPolicy).toEqual({ decision: 'denied', policies: [] });
    expect(denied.message).toContain('g');
  });

  it('matches OR across matchers and AND within one, exact strings, JSON text of numbers and booleans, array members; never objects or missing claims', () => {
    const enforcement = createAiEnforcement({ gateway: 'g', requirePolicy: false });
    enforcement.load([
      policy('a-team', { matchers: [{ team: 'a', level: '3' }, { email: 'boss@example.com' }], servers: ['github'] }),
      policy('b-admins', { matchers: [{ admin: 'true' }], servers: ['jira'] }),
    ]);
    const names = (claims: Record<string, unknown>) => enforcement.decide(claims).matched.map((item) => item.name);
    expect(names({ team: 'a', level: 3 })).toEqual(['a-team']);
    expect(names({ team: ['x', 'a'], level: ['3'] })).toEqual(['a-team']);
    expect(names({ team: 'a' })).toEqual([]);
    expect(names({ team: 'A', level: '3' })).toEqual([]);
    expect(names({ email: 'boss@example.com', admin: true })).toEqual(['a-team', 'b-admins']);
    expect(names({ admin: { value: true } })).toEqual([]);
    expect(names({ 'team.a': 'a' })).toEqual([]);
  });

  it('allows the union of the matched policies\' servers, or every connector with "*"', () => {
    const enforcement = createAiEnforcement({ gateway: 'g', requirePolicy: false });
    enforcement.load([policy('one', { matchers: [{ g: 'x' }], servers: ['github'] }), policy('two', { matchers: [{ g: 'y' }], servers: ['jira'] }), policy('all', { matchers: [{ g: 'z' }], servers: ['*'] })]);
    const both = enforcement.decide({ g: ['x', 'y'] });
    expect(connectorAllowed(both, 'github')).toBe(true);
    expect(connectorAllowed(both, 'jira')).toBe(true);
    expect(connectorAllowed(both, 'slack')).toBe(false);
    expect(connectorAllowed(enforcement.decide({ g: 'z' }), 'slack')).toBe(true);
    const none = enforcement.decide({ g: 'q' });
    expect(connectorAllowed(none, 'github')).toBe(false);
    expect(admitModel(none, 'g').allowed).toBe(false);
  });

  it('gives a virtual key the claims of its owner', () => {
    const enforcement = createAiEnforcement({ gateway: 'g', requirePolicy: false });
    enforcement.load([policy('team', { matchers: [{ groups: 'platform', iss: 'https://idp.example' }] })]);
    const claims = keyOwnerClaims({ issuer: 'https://idp.example', subject: 's-1', email: null, userName: 'kim', groupNames: ['platform', 'all'] });
    expect(claims).toEqual({ iss: 'https://idp.example', sub: 's-1', preferred_username: 'kim', groups: ['platform', 'all'] });
    expect(enforcement.decide(claims).matched.map((item) => item.name)).toEqual(['team']);
  });

  it('enforces only accepted policies that are not held by finalizers', () => {
    const enforcement = createAiEnforcement({ gateway: 'g', requirePolicy: false });
    const invalid = policy('invalid', { matchers: [{ sub: 'a' }] });
    invalid.status = { appliedToSecurityPolicy: false, conditions: [{ ...(invalid.status.conditions[0] as Condition), status: 'False', reason: 'Invalid' }], observedGeneration: 1 };
    const unobserved = { ...policy('unobserved', { matchers: [{ sub: 'a' }] }), status: { appliedToSecurityPolicy: false, conditions: [], observedGeneration: 0 } };
    const deleting = { ...policy('deleting', { matchers: [{ sub: 'a' }] }), deletionTimestamp: '2026-11-26T00:00:00.000Z', deletionGracePeriodSeconds: 0 };
    enforcement.load([invalid, unobserved, deleting]);
    expect(enforcement.decide({ sub: 'a' })).toMatchObject({ governed: false, matched: [] });
    enforcement.load([invalid, unobserved, deleting, policy('kept', { matchers: [{ sub: 'a' }] })]);
    expect(enforcement.decide({ sub: 'a' }).matched.map((item) => item.name)).toEqual(['kept']);
  });

  it('decides against 10,000 policies by the same rules', () => {
    const enforcement = createAiEnforcement({ gateway: 'g', requirePolicy: false });
    const policies = Array.from({ length: 10_000 }, (_, index) => policy(`p-${String(index).padStart(5, '0')}`, { matchers: [{ groups: `team-${String(index % 1000)}`, tier: String(index % 7) }], servers: [`s-${String(index)}`] }));
    enforcement.load(policies);
    const decision = enforcement.decide({ groups: ['team-5', 'team-6'], tier: '5' });
    // index ≡ 5 or 6 (mod 1000), and ≡ 5 (mod 7)
    expect(decision.matched.map((item) => item.name)).toEqual(['p-00005', 'p-01006', 'p-07005', 'p-08006']);
    expect(connectorAllowed(decision, 's-1006')).toBe(true);
    expect(connectorAllowed(decision, 's-6')).toBe(false);
  });

  it('still needs every pair of a matcher when most matchers share one of them (an issuer)', () => {
    const enforcement = createAiEnforcement({ gateway: 'g', requirePolicy: false });
    const issuer = 'https://idp.example';
    enforcement.load([
      policy('team', { matchers: [{ iss: issuer, groups: 'platform' }], servers: ['s-9'] }),
      ...Array.from({ length: 1_000 }, (_, index) => policy(`user-${String(index).padStart(4, '0')}`, { matchers: [{ iss: issuer, sub: `u-${String(index)}` }], servers: [`s-${String(index % 3)}`] })),
    ]);
    const names = (claims: Record<string, unknown>) => enforcement.decide(claims).matched.map((item) => item.name);
    expect(names({ iss: issuer, sub: 'u-42', groups: ['platform'] })).toEqual(['team', 'user-0042']);
    expect(names({ iss: 'https://other.example', sub: 'u-42', groups: ['platform'] })).toEqual([]);
    expect(names({ iss: issuer, sub: 'nobody' })).toEqual([]);
    const decision = enforcement.decide({ iss: issuer, sub: ['u-1', 'u-4'] });
    expect(decision.servers).toEqual({ every: false, names: new Set(['s-1']) });
  });
});
