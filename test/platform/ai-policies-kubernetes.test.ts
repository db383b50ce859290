import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabaseTargets, type TestDatabaseTarget } from '../../src/core/db/database-testing.js';
import { startFakeKubernetes, waitFor, type FakeKubernetes, type FakeObject } from '../helpers/fake-kubernetes.js';
import { AIPOLICIES } from './ai-policies-testing.js';
import { createTestPlatform, platformConfig, type TestPlatform } from './helpers.js';

const BASE = '/ai-gateway/v1/policies';
const NAMESPACE = 'ai-system';
const target = testDatabaseTargets()[0] as TestDatabaseTarget;

interface Condition {
  type: string;
  status: string;
  reason: string;
  message: string;
  observedGeneration: number;
}
interface Policy {
  metadata: { name: string; resourceVersion: string; generation: number; creationTimestamp: string; deletionTimestamp?: string; deletionGracePeriodSeconds?: number };
  spec: Record<string, unknown>;
  status: { appliedToSecurityPolicy: boolean; conditions: Condition[]; observedGeneration: number };
}
interface AiError {
  error: string;
  message: string;
  violations: { field: string; message: string }[];
}

/** An AIPolicy as kubectl or a GitOps tool would write it. */
const object = (name: string, spec: Record<string, unknown>, more: Partial<FakeObject['metadata']> = {}): FakeObject => ({
  apiVersion: 'toolyard.dev/v1alpha1',
  kind: 'AIPolicy',
  metadata: { name, namespace: NAMESPACE, ...more },
  spec: { gatewayRef: { name: 'toolyard' }, ...spec },
});

async function kubernetesPlatform(kube: FakeKubernetes): Promise<TestPlatform> {
  const kubeconfig = await kube.writeKubeconfig();
  const platform = await createTestPlatform({
    target,
    config: { aiGateway: { gateway: { name: 'toolyard', namespace: NAMESPACE }, backend: 'kubernetes', kubernetes: { kubeconfig }, rateLimit: { requestsPerSecond: 0, burst: 0 } } },
  });
  platform.start();
  return platform;
}

describe('AI policies written directly in the cluster', () => {
  let kube: FakeKubernetes;
  let platform: TestPlatform;

  const read = async (name: string) => (await platform.call<Policy>('GET', `${BASE}/${name}`)).body;
  const listed = async () => (await platform.call<{ items: Policy[] }>('GET', BASE)).body.items;
  const enforced = (claims: Record<string, unknown>) => platform.features.aiPolicies.enforcement.decide(claims).matched.map((policy) => policy.name);
  const condition = (policy: Policy, type: string) => policy.status.conditions.find((item) => item.type === type);

  beforeAll(async () => {
    kube = await startFakeKubernetes();
    kube.apply(AIPOLICIES, object('before-start', { principalMatchers: [{ claims: { sub: 'early' } }] }));
    platform = await kubernetesPlatform(kube);
  });
  afterAll(async () => {
    await platform.dispose();
    await kube.close();
  });

  it('writes the status of a valid policy naming this gateway, with its observedGeneration, and enforces it', async () => {
    await waitFor(async () => (await read('before-start')).status.observedGeneration === 1, 'the status of a policy that was there at start');
    kube.apply(AIPOLICIES, object('gitops', { principalMatchers: [{ claims: { sub: 'alice' } }], mcpPolicy: { servers: ['github'] } }));
    await waitFor(async () => (await read('gitops')).status.observedGeneration === 1, 'the status of a policy applied in the cluster');
    const policy = await read('gitops');
    expect(policy.metadata.creationTimestamp).toMatch(/\.000Z$/);
    expect(policy.status.appliedToSecurityPolicy).toBe(true);
    expect(policy.status.conditions.map((item) => [item.type, item.status, item.reason, item.observedGeneration])).toEqual([
      ['Accepted', 'True', 'Accepted', 1],
      ['Ready', 'True', 'Enforced', 1],
    ]);
    await waitFor(() => enforced({ sub: 'alice' }).includes('gitops'), 'enforcement of the applied policy');

    kube.apply(AIPOLICIES, object('gitops', { principalMatchers: [{ claims: { sub: 'bob' } }] }));
    await waitFor(async () => (await read('gitops')).status.observedGeneration === 2, 'the status of the changed spec');
    expect((await read('gitops')).metadata.generation).toBe(2);
    await waitFor(() => enforced({ sub: 'bob' }).includes('gitops') && !enforced({ sub: 'alice' }).includes('gitops'), 'enforcement of the changed spec');
  });

  it('marks a policy that breaks the contract Accepted False, reason Invalid, listing its violations, and does not enforce it', async () => {
    kube.apply(AIPOLICIES, object('broken', { description: 'd'.repeat(1025), principalMatchers: [{ claims: { sub: 'carol' } }], colour: 'red' }));
    await waitFor(async () => (await read('broken')).status.observedGeneration === 1, 'the status of an invalid policy');
    const policy = await read('broken');
    expect(condition(policy, 'Accepted')).toMatchObject({ status: 'False', reason: 'Invalid', observedGeneration: 1 });
    expect(condition(policy, 'Accepted')?.message).toContain('spec.description');
    expect(condition(policy, 'Accepted')?.message).toContain('spec.colour');
    expect(condition(policy, 'Ready')).toMatchObject({ status: 'False', reason: 'NotEnforced' });
    expect(policy.status.appliedToSecurityPolicy).toBe(false);
    expect((await listed()).map((item) => item.metadata.name)).toContain('broken');
    expect(enforced({ sub: 'carol' })).toEqual([]);
  });

  it('leaves the status of a policy naming another gateway to that gateway\'s server', async () => {
    kube.apply(AIPOLICIES, object('elsewhere', { gatewayRef: { name: 'edge' }, principalMatchers: [{ claims: { sub: 'dave' } }] }));
    await waitFor(async () => (await listed()).some((item) => item.metadata.name === 'elsewhere'), 'the policy of another gateway in the list');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(kube.get(AIPOLICIES, NAMESPACE, 'elsewhere')?.status).toBeUndefined();
    expect((await read('elsewhere')).status).toEqual({ appliedToSecurityPolicy: false, conditions: [], observedGeneration: 0 });
  });

  it('lists a policy held by finalizers with its deletion fields, and stops enforcing it', async () => {
    kube.apply(AIPOLICIES, object('held', { principalMatchers: [{ claims: { sub: 'erin' } }] }, { finalizers: ['example.com/cleanup'] }));
    await waitFor(() => enforced({ sub: 'erin' }).includes('held'), 'enforcement of the policy');
    kube.remove(AIPOLICIES, NAMESPACE, 'held');
    await waitFor(() => !enforced({ sub: 'erin' }).includes('held'), 'the held policy to leave the enforcement set');
    const [item] = (await listed()).filter((policy) => policy.metadata.name === 'held');
    expect(item?.metadata.deletionTimestamp).toMatch(/\.000Z$/);
    expect(item?.metadata.deletionGracePeriodSeconds).toBe(0);
    await waitFor(async () => condition(await read('held'), 'Ready')?.status === 'False', 'Ready False on the held policy');

    kube.apply(AIPOLICIES, { ...(kube.get(AIPOLICIES, NAMESPACE, 'held') as FakeObject), metadata: { ...(kube.get(AIPOLICIES, NAMESPACE, 'held') as FakeObject).metadata, finalizers: [] } });
    await waitFor(async () => !(await listed()).some((policy) => policy.metadata.name === 'held'), 'the released policy to go');
  });

  it('drops a policy deleted in the cluster from the list within 1 s', async () => {
    kube.apply(AIPOLICIES, object('short-lived', { principalMatchers: [{ claims: { sub: 'frank' } }] }));
    await waitFor(async () => (await listed()).some((policy) => policy.metadata.name === 'short-lived'), 'the new policy in the list');
    kube.remove(AIPOLICIES, NAMESPACE, 'short-lived');
    await waitFor(async () => !(await listed()).some((policy) => policy.metadata.name === 'short-lived'), 'the deleted policy to leave the list', 1_000);
    expect((await platform.call('GET', `${BASE}/short-lived`)).status).toBe(404);
  });

  it('lists again after the watch expires (410 Gone), catching up with what changed meanwhile', async () => {
    kube.expire('event');
    kube.apply(AIPOLICIES, object('after-expiry', { principalMatchers: [{ claims: { sub: 'gina' } }] }));
    await waitFor(async () => (await listed()).some((policy) => policy.metadata.name === 'after-expiry'), 'the policy written while the watch was expired');
  });

  it('answers a write through the API with the object the API server stored, status included', async () => {
    const body = { metadata: { name: 'through-api' }, spec: { gatewayRef: { name: 'toolyard' }, principalMatchers: [{ claims: { sub: 'hal' } }] } };
    const created = await platform.call<Policy>('POST', BASE, { body });
    expect(created.status).toBe(201);
    const stored = kube.get(AIPOLICIES, NAMESPACE, 'through-api');
    expect(stored?.metadata.resourceVersion).toBe(created.body.metadata.resourceVersion);
    expect(stored?.status).toMatchObject({ observedGeneration: 1, appliedToSecurityPolicy: true });
    expect(enforced({ sub: 'hal' })).toEqual(['through-api']);
  });
});

describe('AI policies when the API server fails', () => {
  let kube: FakeKubernetes;
  let platform: TestPlatform;
  const body = (name: string) => ({ metadata: { name }, spec: { gatewayRef: { name: 'toolyard' }, principalMatchers: [{ claims: { sub: 'ivy' } }] } });

  beforeAll(async () => {
    kube = await startFakeKubernetes();
    platform = await kubernetesPlatform(kube);
  });
  afterAll(async () => {
    await platform.dispose();
    await kube.close();
  });

  it('maps the API server\'s refusals: 422 with its causes, 409 Conflict to 412 with the current ETag, 500 and 403 to 503', async () => {
    kube.failNext('POST', { code: 422, reason: 'Invalid', message: 'AIPolicy.toolyard.dev "refused" is invalid', causes: [{ field: 'spec.description', message: 'Too long: may not be longer than 1024' }] });
    const invalid = await platform.call<AiError>('POST', BASE, { body: body('refused') });
    expect(invalid.status).toBe(422);
    expect(invalid.body.violations).toEqual([{ field: 'spec.description', message: 'Too long: may not be longer than 1024' }]);

    const created = await platform.call<Policy>('POST', BASE, { body: body('contested') });
    expect(created.status).toBe(201);
    kube.failNext('PATCH', { code: 409, reason: 'Conflict', message: 'the object has been modified' });
    const patch = await platform.call<AiError>('PATCH', `${BASE}/contested`, {
      headers: { 'content-type': 'application/merge-patch+json', 'if-match': String(created.headers.etag) },
      body: JSON.stringify({ spec: { description: 'x' } }),
    });
    expect(patch.status).toBe(412);
    expect(patch.headers.etag).toBe(created.headers.etag);

    kube.failNext('GET', { code: 500, reason: 'InternalError', message: 'etcdserver: request timed out' });
    const failed = await platform.call<AiError>('GET', `${BASE}/contested`);
    expect(failed.status).toBe(503);
    expect(failed.body.error).toBe('unavailable');
    expect(failed.body.message).not.toContain('etcdserver');
    kube.failNext('DELETE', { code: 403, reason: 'Forbidden', message: 'aipolicies is forbidden: User "system:serviceaccount:x:y" cannot delete' });
    expect((await platform.call('DELETE', `${BASE}/contested`, { headers: { 'if-match': '*' } })).status).toBe(503);
    expect((await platform.call('DELETE', `${BASE}/contested`, { headers: { 'if-match': '"0"' } })).status).toBe(412);
    expect((await platform.call('DELETE', `${BASE}/contested`, { headers: { 'if-match': '*' } })).status).toBe(204);
  });

  it('keeps enforcing the last view when the API server is lost, while management reads answer 503', async () => {
    expect((await platform.call('POST', BASE, { body: body('kept') })).status).toBe(201);
    const decide = () => platform.features.aiPolicies.enforcement.decide({ sub: 'ivy' }).matched.map((policy) => policy.name);
    expect(decide()).toEqual(['kept']);
    await kube.close();
    expect((await platform.call<AiError>('GET', `${BASE}/kept`)).status).toBe(503);
    await waitFor(async () => (await platform.call('GET', BASE)).status === 503, 'lists to answer 503');
    expect((await platform.call('POST', BASE, { body: body('lost') })).status).toBe(503);
    expect(decide()).toEqual(['kept']);
  });
});

describe('the kubernetes backend at start', () => {
  it('stops the start naming aiGateway.kubernetes.kubeconfig when the file cannot be loaded', async () => {
    const config = platformConfig({ aiGateway: { backend: 'kubernetes', kubernetes: { kubeconfig: '/nonexistent/kubeconfig.yaml' } } });
    expect(config.aiGateway.backend).toBe('kubernetes');
    await expect(createTestPlatform({ config: { aiGateway: { backend: 'kubernetes', kubernetes: { kubeconfig: '/nonexistent/kubeconfig.yaml' } } } })).rejects.toThrow('aiGateway.kubernetes.kubeconfig');
  });
});
