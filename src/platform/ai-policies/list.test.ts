import { describe, expect, it } from 'vitest';
import type { StoredPolicy } from './backend.js';
import { createListEncoder, listPolicies, type ListContext } from './list.js';
import { createPageTokens } from './page-token.js';
import { presentPolicy } from './present.js';
import type { AiPolicy } from './schemas.js';

const stored = (name: string, labels: Record<string, string>, description = 'first'): StoredPolicy => ({
  name,
  uid: `uid-${name}`,
  resourceVersion: '1',
  generation: 1,
  creationTimestamp: '2026-11-26T00:00:00.000Z',
  labels,
  annotations: {},
  spec: { description, gatewayRef: { name: 'g' }, principalMatchers: [{ claims: { groups: 'ml' } }] },
  status: { appliedToSecurityPolicy: true, conditions: [], observedGeneration: 1 },
});

describe('AI policy list bytes', () => {
  const context = (policies: StoredPolicy[], present?: (policy: StoredPolicy) => AiPolicy): ListContext => ({
    policies,
    tokens: createPageTokens(Buffer.alloc(32, 1)),
    now: Date.parse('2026-11-26T00:00:00Z'),
    ttlMs: 300_000,
    namespace: 'ai-system',
    ...(present && { present }),
  });

  it('are the JSON of the list, page token and remaining count included', () => {
    const encode = createListEncoder();
    const policies = [stored('a', { team: 'ml' }), stored('b', {}), stored('c', { team: 'ml' })];
    const first = listPolicies({ limit: '1' }, context(policies));
    expect(JSON.parse(encode(first).toString('utf8'))).toEqual(first);
    expect(first.remainingItemCount).toBe(2);
    const selected = listPolicies({ labelSelector: 'team=ml' }, context(policies));
    expect(JSON.parse(encode(selected).toString('utf8'))).toEqual(selected);
    expect(JSON.parse(encode(listPolicies({ labelSelector: 'team=none' }, context(policies))).toString('utf8'))).toEqual({
      apiVersion: 'toolyard.dev/v1alpha1',
      kind: 'AIPolicyList',
      items: [],
      nextPageToken: '',
    });
  });

  it('show a policy as it is now once its stored version has changed', () => {
    const encode = createListEncoder();
    const presented = new WeakMap<StoredPolicy, AiPolicy>();
    const present = (policy: StoredPolicy) => {
      const resource = presented.get(policy) ?? presentPolicy(policy, 'ai-system');
      presented.set(policy, resource);
      return resource;
    };
    const before = [stored('a', {})];
    expect(encode(listPolicies({}, context(before, present))).toString('utf8')).toContain('"description":"first"');
    const after = [{ ...stored('a', {}, 'second'), resourceVersion: '2', generation: 2 }];
    const text = encode(listPolicies({}, context(after, present))).toString('utf8');
    expect(text).toContain('"description":"second"');
    expect(text).not.toContain('"description":"first"');
  });
});
