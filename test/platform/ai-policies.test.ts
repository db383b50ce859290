import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeKubernetes } from '../helpers/fake-kubernetes.js';
import type { OidcProvider } from '../helpers/oidc-provider.js';
import { aiPolicyBackends, backendSettings } from './ai-policies-testing.js';
import { createTestPlatform, oauthWith, startTestProvider, type CallResult, type TestPlatform } from './helpers.js';

const BASE = '/ai-gateway/v1/policies';

interface Policy {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace: string; uid: string; resourceVersion: string; generation: number; creationTimestamp: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  spec: { description?: string; gatewayRef: { name: string }; mcpPolicy?: { servers?: string[] }; principalMatchers: { claims: Record<string, string> }[] };
  status: { appliedToSecurityPolicy: boolean; conditions: { type: string; status: string; reason: string; observedGeneration: number; lastTransitionTime: string }[]; observedGeneration: number };
}
interface AiError {
  error: string;
  message: string;
  requestId: string;
  violations: { field: string; message: string }[];
}
interface PolicyList {
  apiVersion: string;
  kind: string;
  items: Policy[];
  nextPageToken: string;
  remainingItemCount?: number;
}

const policyBody = (name: string, extra: { labels?: Record<string, string>; gateway?: string; spec?: Record<string, unknown> } = {}) => ({
  apiVersion: 'toolyard.dev/v1alpha1',
  kind: 'AIPolicy',
  metadata: { name, ...(extra.labels && { labels: extra.labels }) },
  spec: { gatewayRef: { name: extra.gateway ?? 'toolyard' }, principalMatchers: [{ claims: { groups: 'engineering' } }], ...extra.spec },
});

describe.each(aiPolicyBackends().map((backend) => [backend.name, backend] as const))('AI policies (%s)', (_name, backend) => {
  let provider: OidcProvider;
  let platform: TestPlatform;
  let kube: FakeKubernetes | undefined;
  let offsetMs = 0;
  const tokens = { admin: '', writer: '', auditor: '', user: '' };

  const call = <T>(method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, token: string, body?: unknown, headers: Record<string, string> = {}): Promise<CallResult<T>> =>
    platform.call<T>(method, url, { token, ...(body !== undefined && { body }), headers });
  const create = async (body: unknown) => {
    const answer = await call<Policy>('POST', BASE, tokens.writer, body);
    expect(answer.status, answer.text).toBe(201);
    return answer;
  };
  const patch = (name: string, body: unknown, headers: Record<string, string> = { 'if-match': '*' }) =>
    platform.call<Policy & AiError>('PATCH', `${BASE}/${name}`, { token: tokens.writer, headers: { 'content-type': 'application/merge-patch+json', ...headers }, body: JSON.stringify(body) });

  beforeAll(async () => {
    provider = await startTestProvider();
    const selected = await backendSettings(backend);
    kube = selected.kube;
    platform = await createTestPlatform({
      target: backend.target,
      config: { auth: oauthWith(provider), aiGateway: { gateway: { name: 'toolyard', namespace: 'ai-system' }, rateLimit: { requestsPerSecond: 0, burst: 0 }, ...selected.settings } },
      clock: { now: () => new Date(Date.now() + offsetMs) },
    });
    const exp = Math.floor(Date.now() / 1000) + 3600;
    tokens.admin = await provider.mint({ sub: 'root', exp, claims: { roles: ['admin'] } });
    tokens.writer = await provider.mint({ sub: 'writer', exp, claims: { roles: ['aiPolicyAdmin'] } });
    tokens.auditor = await provider.mint({ sub: 'audrey', exp, claims: { roles: ['auditor'] } });
    tokens.user = await provider.mint({ sub: 'ursula', exp, claims: { groups: ['engineering'] } });
  });
  afterAll(async () => {
    await platform.dispose();
    await provider.close();
    await kube?.close();
  });

  it('creates a policy with 201, its ETag and Location, the maintained metadata and this gateway\'s status', async () => {
    const body = { ...policyBody('alpha', { labels: { team: 'ml' } }), status: { appliedToSecurityPolicy: false, observedGeneration: 9 } };
    (body.metadata as Record<string, unknown>).namespace = 'elsewhere';
    (body.metadata as Record<string, unknown>).uid = 'not-kept';
    const created = await create(body);
    const policy = created.body;
    expect(created.headers.etag).toBe(`"${policy.metadata.resourceVersion}"`);
    expect(created.headers.location).toBe(`${BASE}/alpha`);
    expect(policy.apiVersion).toBe('toolyard.dev/v1alpha1');
    expect(policy.kind).toBe('AIPolicy');
    expect(policy.metadata).toEqual({
      name: 'alpha',
      namespace: 'ai-system',
      uid: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/) as unknown,
      resourceVersion: expect.stringMatching(/^\d+$/) as unknown,
      generation: 1,
      creationTimestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/) as unknown,
      labels: { team: 'ml' },
    });
    expect(policy.spec).toEqual({ gatewayRef: { name: 'toolyard' }, principalMatchers: [{ claims: { groups: 'engineering' } }] });
    expect(policy.status.appliedToSecurityPolicy).toBe(true);
    expect(policy.status.observedGeneration).toBe(1);
    expect(policy.status.conditions.map((condition) => [condition.type, condition.status, condition.reason, condition.observedGeneration])).toEqual([
      ['Accepted', 'True', 'Accepted', 1],
      ['Ready', 'True', 'Enforced', 1],
    ]);

    const read = await call<Policy>('GET', `${BASE}/alpha`, tokens.auditor);
    expect(read.status).toBe(200);
    expect(read.headers.etag).toBe(created.headers.etag);
    expect(read.body).toEqual(policy);
  });

  it('shows a policy naming another gateway as not yet observed, and omits empty optional members', async () => {
    const { body } = await create(policyBody('other-gateway', { gateway: 'edge', spec: { description: '', mcpPolicy: { servers: [] } } }));
    expect(body.status).toEqual({ appliedToSecurityPolicy: false, conditions: [], observedGeneration: 0 });
    expect(body.metadata.labels).toBeUndefined();
    expect(body.metadata.annotations).toBeUndefined();
    expect(body.spec).toEqual({ gatewayRef: { name: 'edge' }, mcpPolicy: {}, principalMatchers: [{ claims: { groups: 'engineering' } }] });
  });

  it('answers 409 already_exists to a create of an existing name', async () => {
    await create(policyBody('taken'));
    const again = await call<AiError>('POST', BASE, tokens.writer, policyBody('taken'));
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ error: 'already_exists', violations: [] });
    expect(again.body.requestId).toBe(again.headers['x-request-id']);
  });

  it('lists every broken rule of a create as a 422 violation naming its field', async () => {
    const answer = await call<AiError>('POST', BASE, tokens.writer, {
      metadata: { name: 'Bad_Name', labels: { 'bad key!': 'v', ok: 'x'.repeat(64) } },
      spec: {
        description: 'd'.repeat(1025),
        gatewayRef: { name: 'Not.Valid-' },
        mcpPolicy: { servers: ['a', 'a', ''] },
        principalMatchers: [{ claims: {} }, { claims: { groups: 7 } }, 'x'],
      },
    });
    expect(answer.status).toBe(422);
    expect(answer.body.error).toBe('invalid');
    expect(answer.body.violations.map((violation) => violation.field)).toEqual([
      'metadata.name',
      'metadata.labels',
      'metadata.labels',
      'spec.gatewayRef.name',
      'spec.description',
      'spec.mcpPolicy.servers[1]',
      'spec.mcpPolicy.servers[2]',
      'spec.principalMatchers[0].claims',
      'spec.principalMatchers[1].claims',
      'spec.principalMatchers[2]',
    ]);
    const missing = await call<AiError>('POST', BASE, tokens.writer, { metadata: { name: 'x'.repeat(254) }, spec: { gatewayRef: { name: 'toolyard' }, principalMatchers: [] } });
    expect(missing.status).toBe(422);
    expect(missing.body.violations.map((violation) => violation.field)).toEqual(['metadata.name', 'spec.principalMatchers']);
    const wrongType = await call<AiError>('POST', BASE, tokens.writer, { metadata: { name: 'typed' }, spec: 'everything' });
    expect(wrongType.status).toBe(422);
    expect(wrongType.body.violations[0]?.field).toBe('spec');
  });

  it('answers 400 to unknown members at any depth (one violation each), a wrong apiVersion or kind, a body that is not an object, and another media type', async () => {
    const unknown = await call<AiError>('POST', BASE, tokens.writer, { ...policyBody('unknown'), extra: 1, spec: { ...policyBody('unknown').spec, principalMatchers: [{ claims: { a: 'b' }, weight: 2 }], colour: 'red' } });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error).toBe('bad_request');
    expect(unknown.body.violations.map((violation) => violation.field).sort()).toEqual(['extra', 'spec.colour', 'spec.principalMatchers[0].weight']);
    const version = await call<AiError>('POST', BASE, tokens.writer, { ...policyBody('versioned'), apiVersion: 'toolyard.dev/v1' });
    expect(version.status).toBe(400);
    expect(version.body.violations).toEqual([{ field: 'apiVersion', message: expect.stringContaining('toolyard.dev/v1alpha1') as unknown }]);
    const kind = await call<AiError>('POST', BASE, tokens.writer, { ...policyBody('kinded'), kind: 'Policy' });
    expect(kind.body.violations[0]?.field).toBe('kind');
    const array = await call<AiError>('POST', BASE, tokens.writer, [policyBody('listed')]);
    expect(array.status).toBe(400);
    const text = await platform.call<AiError>('POST', BASE, { token: tokens.writer, headers: { 'content-type': 'text/plain' }, body: JSON.stringify(policyBody('texted')) });
    expect(text.status).toBe(400);
    expect(text.body.message).toContain('text/plain');
    const broken = await platform.call<AiError>('POST', BASE, { token: tokens.writer, headers: { 'content-type': 'application/json' }, body: '{"metadata":' });
    expect(broken.status).toBe(400);
    expect(broken.body.error).toBe('bad_request');
  });

  it('checks roles before the body: 401, then 403, then 400', async () => {
    const anonymous = await platform.call<AiError>('POST', BASE, { body: 'nonsense', headers: { 'content-type': 'text/plain' } });
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers['www-authenticate']).toContain('resource_metadata=');
    expect(anonymous.body).toMatchObject({ error: 'unauthenticated', violations: [] });
    expect(anonymous.body.requestId).toBe(anonymous.headers['x-request-id']);
    const key = await platform.call<AiError>('GET', BASE, { token: 'tyk_notajwt' });
    expect(key.status).toBe(401);
    expect(key.body.error).toBe('unauthenticated');
    const user = await platform.call<AiError>('POST', BASE, { token: tokens.user, body: 'nonsense', headers: { 'content-type': 'text/plain' } });
    expect(user.status).toBe(403);
    expect(user.body.error).toBe('forbidden');
    const auditor = await call<AiError>('POST', BASE, tokens.auditor, policyBody('by-auditor'));
    expect(auditor.status).toBe(403);
    expect((await call('GET', BASE, tokens.user)).status).toBe(403);
    expect((await call('GET', `${BASE}/alpha`, tokens.user)).status).toBe(403);
    expect((await call('DELETE', `${BASE}/alpha`, tokens.user)).status).toBe(403);
    expect((await call('GET', `${BASE}/alpha`, tokens.admin)).status).toBe(200);
  });

  it('answers 404 not_found for an unknown or invalid name, and for an unknown route in its own body', async () => {
    const unknown = await call<AiError>('GET', `${BASE}/nobody`, tokens.auditor);
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ error: 'not_found', violations: [] });
    expect((await call('GET', `${BASE}/Not_Valid`, tokens.auditor)).status).toBe(404);
    const route = await call<AiError>('GET', '/ai-gateway/v1/nothing-here', tokens.auditor);
    expect(route.status).toBe(404);
    expect(route.body.error).toBe('not_found');
  });

  it('merges a patch as RFC 7396: null removes a member, arrays are replaced whole, nested objects merge', async () => {
    await create(policyBody('merged', { spec: { description: 'first', mcpPolicy: { servers: ['github', 'jira'] }, principalMatchers: [{ claims: { groups: 'a' } }, { claims: { groups: 'b' } }] } }));
    const nested = await patch('merged', { spec: { description: 'second' } });
    expect(nested.status, nested.text).toBe(200);
    expect(nested.body.spec).toEqual({
      description: 'second',
      gatewayRef: { name: 'toolyard' },
      mcpPolicy: { servers: ['github', 'jira'] },
      principalMatchers: [{ claims: { groups: 'a' } }, { claims: { groups: 'b' } }],
    });
    expect(nested.body.metadata.generation).toBe(2);
    expect(nested.body.status.observedGeneration).toBe(2);
    expect(nested.headers.etag).toBe(`"${nested.body.metadata.resourceVersion}"`);

    const arrays = await patch('merged', { spec: { mcpPolicy: { servers: ['*'] }, principalMatchers: [{ claims: { groups: 'c', team: 'x' } }] } });
    expect(arrays.body.spec.mcpPolicy).toEqual({ servers: ['*'] });
    expect(arrays.body.spec.principalMatchers).toEqual([{ claims: { groups: 'c', team: 'x' } }]);

    const claims = await patch('merged', { spec: { description: null, mcpPolicy: null } });
    expect(claims.body.spec).toEqual({ gatewayRef: { name: 'toolyard' }, principalMatchers: [{ claims: { groups: 'c', team: 'x' } }] });
    expect(claims.body.metadata.generation).toBe(4);
    // the condition's status never changed, so neither did its transition time
    expect(claims.body.status.conditions[0]?.lastTransitionTime).toBe(nested.body.status.conditions[0]?.lastTransitionTime);
  });

  it('ignores status and maintained metadata in a patch, and answers a patch that changes nothing with the same version, unaudited', async () => {
    const { body: created } = await create(policyBody('steady', { spec: { description: 'same' } }));
    const same = await patch('steady', { status: { appliedToSecurityPolicy: false }, metadata: { resourceVersion: '1', uid: 'x', generation: 40, namespace: 'other' }, spec: { description: 'same' } });
    expect(same.status).toBe(200);
    expect(same.body).toEqual(created);
    expect(same.headers.etag).toBe(`"${created.metadata.resourceVersion}"`);
    const audits = await call<{ events: { action: string }[] }>('GET', '/v1/audit-events?target_type=ai_policy', tokens.admin);
    expect(audits.body.events.filter((event) => event.action === 'ai_policy.patch').length).toBe(3);
  });

  it('refuses to change the gateway, name, labels or annotations, and validates the merged result', async () => {
    await create(policyBody('fixed', { labels: { tier: 'one' } }));
    const gateway = await patch('fixed', { spec: { gatewayRef: { name: 'edge' } } });
    expect(gateway.status).toBe(422);
    expect(gateway.body.violations).toEqual([{ field: 'spec.gatewayRef', message: expect.stringContaining('field is immutable') as unknown }]);
    expect((await patch('fixed', { spec: { gatewayRef: null } })).body.violations[0]?.field).toBe('spec.gatewayRef');
    const labels = await patch('fixed', { metadata: { labels: { tier: 'two' } } });
    expect(labels.status).toBe(422);
    expect(labels.body.violations[0]).toEqual({ field: 'metadata.labels', message: expect.stringContaining('not patchable') as unknown });
    expect((await patch('fixed', { metadata: { name: 'renamed' } })).body.violations[0]?.field).toBe('metadata.name');
    expect((await patch('fixed', { metadata: { annotations: { note: 'x' } } })).body.violations[0]?.field).toBe('metadata.annotations');
    const matchers = await patch('fixed', { spec: { principalMatchers: null } });
    expect(matchers.status).toBe(422);
    expect(matchers.body.violations[0]?.field).toBe('spec.principalMatchers');
    expect((await patch('fixed', { metadata: { labels: { tier: 'one' } }, spec: { gatewayRef: { name: 'toolyard' } } })).status).toBe(200);
  });

  it('takes application/merge-patch+json and application/json, and refuses other patch media types and non-object bodies with 400', async () => {
    await create(policyBody('typed-patch'));
    const json = await platform.call<Policy>('PATCH', `${BASE}/typed-patch`, { token: tokens.writer, headers: { 'if-match': '*', 'content-type': 'application/json' }, body: { spec: { description: 'plain json' } } });
    expect(json.status).toBe(200);
    expect(json.body.spec.description).toBe('plain json');
    for (const type of ['application/json-patch+json', 'application/strategic-merge-patch+json', 'application/apply-patch+yaml']) {
      const answer = await patch('typed-patch', { spec: { description: 'x' } }, { 'if-match': '*', 'content-type': type });
      expect(answer.status, type).toBe(400);
    }
    expect((await platform.call('PATCH', `${BASE}/typed-patch`, { token: tokens.writer, headers: { 'if-match': '*', 'content-type': 'application/merge-patch+json' }, body: '[]' })).status).toBe(400);
    expect((await patch('typed-patch', { spec: { unknown: 1 } })).status).toBe(400);
  });

  it('orders 428, 404, 412 and 422 as the contract says, and 412 carries the current ETag', async () => {
    const { body: created, headers } = await create(policyBody('guarded'));
    const etag = String(headers.etag);
    const required = await patch('guarded', { spec: { description: 'x' } }, {});
    expect(required.status).toBe(428);
    expect(required.body.error).toBe('precondition_required');
    expect((await patch('nobody-here', { spec: { description: 'x' } }, {})).status).toBe(428);
    expect((await patch('nobody-here', { spec: { description: 'x' } }, { 'if-match': '"1"' })).status).toBe(404);
    const stale = await patch('guarded', { spec: { gatewayRef: { name: 'edge' } } }, { 'if-match': '"0"' });
    expect(stale.status).toBe(412);
    expect(stale.body.error).toBe('precondition_failed');
    expect(stale.headers.etag).toBe(etag);
    expect((await patch('guarded', { spec: { description: 'x' } }, { 'if-match': `W/${etag}` })).status).toBe(412);
    expect((await patch('guarded', { spec: { description: 'x' } }, { 'if-match': created.metadata.resourceVersion })).status).toBe(412);
    expect((await patch('guarded', { spec: { gatewayRef: { name: 'edge' } } }, { 'if-match': etag })).status).toBe(422);
    const listed = await patch('guarded', { spec: { description: 'x' } }, { 'if-match': `"0", ${etag}` });
    expect(listed.status).toBe(200);
    expect(listed.headers.etag).not.toBe(etag);

    expect((await call('DELETE', `${BASE}/guarded`, tokens.writer)).status).toBe(428);
    const staleDelete = await call('DELETE', `${BASE}/guarded`, tokens.writer, undefined, { 'if-match': etag });
    expect(staleDelete.status).toBe(412);
    expect(staleDelete.headers.etag).toBe(listed.headers.etag);
    expect((await call('DELETE', `${BASE}/guarded`, tokens.writer, undefined, { 'if-match': String(listed.headers.etag) })).status).toBe(204);
    expect((await call('GET', `${BASE}/guarded`, tokens.auditor)).status).toBe(404);
    expect((await call('DELETE', `${BASE}/guarded`, tokens.writer, undefined, { 'if-match': '*' })).status).toBe(404);
  });

  it('echoes a valid X-Request-Id, replaces an invalid one, and audits every write with it', async () => {
    const echoed = await call<Policy>('POST', BASE, tokens.writer, policyBody('traced'), { 'x-request-id': 'trace:abc/1+2=3~x' });
    expect(echoed.headers['x-request-id']).toBe('trace:abc/1+2=3~x');
    const replaced = await call<AiError>('GET', `${BASE}/nobody`, tokens.auditor, undefined, { 'x-request-id': 'has space' });
    expect(replaced.headers['x-request-id']).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(replaced.body.requestId).toBe(replaced.headers['x-request-id']);
    expect((await call('GET', `${BASE}/traced`, tokens.auditor, undefined, { 'x-request-id': 'x'.repeat(129) })).headers['x-request-id']).not.toBe('x'.repeat(129));
    const audits = await call<{ events: { action: string; request_id: string; target: { id: string }; actor: { subject: string } }[] }>('GET', '/v1/audit-events?action=ai_policy.create', tokens.admin);
    const record = audits.body.events.find((event) => event.target.id === 'traced');
    expect(record).toMatchObject({ request_id: 'trace:abc/1+2=3~x', actor: { subject: 'writer' } });
  });

  describe('list', () => {
    const names = Array.from({ length: 12 }, (_, index) => `page-${String(index).padStart(2, '0')}`);
    beforeAll(async () => {
      for (const [index, name] of names.entries()) {
        await create(policyBody(name, { labels: { batch: 'paged', parity: index % 2 === 0 ? 'even' : 'odd', rank: String(index) }, gateway: index % 3 === 0 ? 'edge' : 'toolyard' }));
      }
    });
    const list = (query: string, token = tokens.auditor) => call<PolicyList & AiError>('GET', `${BASE}${query}`, token);

    it('lists in name order with a list kind, nextPageToken "" on the last page', async () => {
      const all = await list('');
      expect(all.status).toBe(200);
      expect(all.body.apiVersion).toBe('toolyard.dev/v1alpha1');
      expect(all.body.kind).toBe('AIPolicyList');
      const listed = all.body.items.map((item) => item.metadata.name);
      expect(listed).toEqual([...listed].sort());
      expect(all.body.nextPageToken).toBe('');
      expect(all.body.remainingItemCount).toBeUndefined();
    });

    it('pages with pageToken, each policy once, with remainingItemCount only without filters', async () => {
      const seen: string[] = [];
      let token = '';
      let pages = 0;
      do {
        const page = await list(`?limit=5&labelSelector=batch%3Dpaged${token ? `&pageToken=${encodeURIComponent(token)}` : ''}`);
        expect(page.status, page.text).toBe(200);
        expect(page.body.remainingItemCount).toBeUndefined();
        seen.push(...page.body.items.map((item) => item.metadata.name));
        token = page.body.nextPageToken;
        pages += 1;
      } while (token !== '');
      expect(seen).toEqual(names);
      expect(pages).toBe(3);

      const first = await list('?limit=2');
      expect(first.body.items.length).toBe(2);
      expect(first.body.remainingItemCount).toBe((await list('')).body.items.length - 2);
      const second = await list(`?limit=3&pageToken=${encodeURIComponent(first.body.nextPageToken)}`);
      expect(second.status).toBe(200);
      expect((second.body.items[0]?.metadata.name ?? '') > (first.body.items[1]?.metadata.name ?? '')).toBe(true);
    });

    it('drops policies naming another gateway after taking the page, so a page may be short', async () => {
      const page = await list('?limit=3&labelSelector=batch%3Dpaged&gatewayRef=edge');
      expect(page.body.items.map((item) => item.metadata.name)).toEqual(['page-00']);
      expect(page.body.nextPageToken).not.toBe('');
      const rest = await list(`?limit=3&labelSelector=batch%3Dpaged&gatewayRef=edge&pageToken=${encodeURIComponent(page.body.nextPageToken)}`);
      expect(rest.body.items.map((item) => item.metadata.name)).toEqual(['page-03']);
    });

    it('selects by the Kubernetes label selector grammar', async () => {
      const selected = async (selector: string) => (await list(`?labelSelector=${encodeURIComponent(selector)}`)).body.items.map((item) => item.metadata.name);
      expect(await selected('batch=paged,parity==odd,rank in (1,3,4)')).toEqual(['page-01', 'page-03']);
      expect(await selected('batch,rank notin (0,1,2,3,4,5,6,7,8,9,10),parity!=even')).toEqual(['page-11']);
      expect(await selected('batch=paged,rank>9')).toEqual(['page-10', 'page-11']);
      expect(await selected('rank<1')).toEqual(['page-00']);
      expect((await selected('!batch')).every((name) => !name.startsWith('page-'))).toBe(true);
      expect((await selected('parity!=odd')).length).toBe((await list('')).body.items.length - 6);
    });

    it('answers 400 naming the parameter for a bad limit, selector or page token', async () => {
      for (const limit of ['0', '-1', 'abc', '1.5', '000']) {
        const answer = await list(`?limit=${limit}`);
        expect(answer.status, limit).toBe(400);
        expect(answer.body.violations).toEqual([{ field: 'limit', message: expect.any(String) as unknown }]);
      }
      expect((await list('?limit=1000')).body.items.length).toBe((await list('')).body.items.length);
      expect((await list('?limit=&labelSelector=&pageToken=&gatewayRef=')).status).toBe(200);
      const selector = await list(`?labelSelector=${encodeURIComponent('x=a||y=b')}`);
      expect(selector.status).toBe(400);
      expect(selector.body.violations[0]?.field).toBe('labelSelector');
      const page = await list('?limit=2');
      const altered = `${page.body.nextPageToken.slice(0, -2)}AA`;
      expect((await list(`?pageToken=${encodeURIComponent(altered)}`)).body.violations[0]?.field).toBe('pageToken');
      const refiltered = await list(`?labelSelector=batch&pageToken=${encodeURIComponent(page.body.nextPageToken)}`);
      expect(refiltered.status).toBe(400);
      expect(refiltered.body.violations[0]?.field).toBe('pageToken');
      offsetMs = 6 * 60_000;
      try {
        const expired = await list(`?pageToken=${encodeURIComponent(page.body.nextPageToken)}`);
        expect(expired.status).toBe(400);
        expect(expired.body.message).toContain('expired');
      } finally {
        offsetMs = 0;
      }
    });
  });
});

describe('AI gateway rate limit', () => {
  it('answers 429 with Retry-After once a caller has used its burst, per caller', async () => {
    const provider = await startTestProvider();
    const platform = await createTestPlatform({ config: { auth: oauthWith(provider), aiGateway: { rateLimit: { requestsPerSecond: 0.001, burst: 2 } } } });
    try {
      const auditor = await provider.mint({ sub: 'audrey', claims: { roles: ['auditor'] } });
      const other = await provider.mint({ sub: 'otto', claims: { roles: ['auditor'] } });
      expect((await platform.call('GET', BASE, { token: auditor })).status).toBe(200);
      expect((await platform.call('GET', BASE, { token: auditor })).status).toBe(200);
      const limited = await platform.call<AiError>('GET', BASE, { token: auditor });
      expect(limited.status).toBe(429);
      expect(limited.body.error).toBe('rate_limited');
      expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect((await platform.call('GET', BASE, { token: other })).status).toBe(200);
      expect((await platform.call('GET', BASE)).status).toBe(401);
    } finally {
      await platform.dispose();
      await provider.close();
    }
  });
});

describe('AI policies without their backend', () => {
  it('answer 413 to a body over 1 MiB, and 503 unavailable to reads and writes once the database cannot be reached', async () => {
    const platform = await createTestPlatform();
    platform.start();
    try {
      const large = await platform.call<AiError>('POST', BASE, { body: { metadata: { name: 'big', annotations: { a: 'x'.repeat(1024 * 1024) } } } });
      expect(large.status).toBe(413);
      expect(large.body.error).toBe('payload_too_large');

      await platform.database.close();
      const read = await platform.call<AiError>('GET', `${BASE}/anything`);
      expect(read.status).toBe(503);
      expect(read.body).toMatchObject({ error: 'unavailable', violations: [] });
      const write = await platform.call<AiError>('POST', BASE, { body: { metadata: { name: 'lost' }, spec: { gatewayRef: { name: 'toolyard' }, principalMatchers: [{ claims: { sub: 'a' } }] } } });
      expect(write.status).toBe(503);
      let list = await platform.call<AiError>('GET', BASE);
      for (let attempt = 0; attempt < 100 && list.status === 200; attempt++) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        list = await platform.call<AiError>('GET', BASE);
      }
      expect(list.status).toBe(503);
      expect((await platform.call('GET', '/ai-gateway/v1/gateway')).status).toBe(200);
    } finally {
      await platform.dispose().catch(() => undefined);
    }
  });
});
