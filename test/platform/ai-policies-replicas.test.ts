import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabaseTargets } from '../../src/core/db/database-testing.js';
import type { PlatformApp } from '../../src/platform/app.js';
import type { FakeKubernetes } from '../helpers/fake-kubernetes.js';
import type { OidcProvider } from '../helpers/oidc-provider.js';
import { backendSettings, policyBackendsOn } from './ai-policies-testing.js';
import { startReplicas, startTestProvider } from './helpers.js';

const BASE = '/ai-gateway/v1/policies';

// two replicas need a database they share: PostgreSQL (PGlite belongs to one process); on the kubernetes backend they share the API server too
const onPostgres = testDatabaseTargets().filter((target) => target.name === 'postgres').flatMap(policyBackendsOn);

describe.each(onPostgres.map((backend) => [backend.name, backend] as const))('AI policies on two replicas (%s)', (_name, backend) => {
  const { target } = backend;
  let provider: OidcProvider;
  let kube: FakeKubernetes | undefined;
  let created: Awaited<ReturnType<typeof target.create>>;
  const replicas: PlatformApp[] = [];
  let admin = '';

  const call = async (on: PlatformApp, method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, body?: unknown, headers: Record<string, string> = {}) => {
    const response = await on.http.inject({ method, url, headers: { authorization: `Bearer ${admin}`, ...headers }, ...(body !== undefined && { payload: body as object }) });
    return { status: response.statusCode, body: response.body === '' ? undefined : (JSON.parse(response.body) as Record<string, unknown>) };
  };
  const names = async (on: PlatformApp) => ((await call(on, 'GET', BASE)).body?.items as { metadata: { name: string } }[]).map((item) => item.metadata.name);

  /** Lists on `reader` until `expected` holds, for at most the contract's propagation bound (1 s). */
  const within1s = async (reader: PlatformApp, expected: (listed: string[]) => boolean): Promise<string[]> => {
    const deadline = Date.now() + 1_000;
    let listed = await names(reader);
    while (!expected(listed) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      listed = await names(reader);
    }
    return listed;
  };

  beforeAll(async () => {
    provider = await startTestProvider();
    created = await target.create();
    const selected = await backendSettings(backend);
    kube = selected.kube;
    replicas.push(...(await startReplicas(provider, created, 2, { aiGateway: selected.settings })));
    admin = await provider.mint({ sub: 'root', claims: { roles: ['admin'] } });
  });
  afterAll(async () => {
    for (const app of replicas) await app.close();
    await created.drop();
    await provider.close();
    await kube?.close();
  });

  it('shows a create, a patch and a delete made on one replica in the other\'s lists within 1 s, and in the writer\'s at once', async () => {
    const [writer, reader] = replicas as [PlatformApp, PlatformApp];
    const body = { metadata: { name: 'shared' }, spec: { gatewayRef: { name: 'toolyard' }, principalMatchers: [{ claims: { sub: 'alice' } }] } };
    expect((await call(writer, 'POST', BASE, body)).status).toBe(201);
    expect(await names(writer)).toEqual(['shared']);
    expect(await within1s(reader, (listed) => listed.includes('shared'))).toEqual(['shared']);

    const patched = await call(writer, 'PATCH', `${BASE}/shared`, { spec: { description: 'changed' } }, { 'if-match': '*' });
    expect(patched.status).toBe(200);
    const version = (patched.body?.metadata as { resourceVersion: string }).resourceVersion;
    const deadline = Date.now() + 1_000;
    let seen = '';
    while (seen !== version && Date.now() < deadline) {
      const listed = (await call(reader, 'GET', BASE)).body?.items as { metadata: { resourceVersion: string } }[];
      seen = listed[0]?.metadata.resourceVersion ?? '';
    }
    expect(seen).toBe(version);
    // a page token from one replica continues the list on the other
    expect((await call(writer, 'POST', BASE, { ...body, metadata: { name: 'shared-two' } })).status).toBe(201);
    await within1s(reader, (listed) => listed.length === 2);
    const first = await call(writer, 'GET', `${BASE}?limit=1`);
    const token = String(first.body?.nextPageToken);
    const second = await call(reader, 'GET', `${BASE}?limit=1&pageToken=${encodeURIComponent(token)}`);
    expect(second.status).toBe(200);
    expect((second.body?.items as { metadata: { name: string } }[]).map((item) => item.metadata.name)).toEqual(['shared-two']);

    expect((await call(writer, 'DELETE', `${BASE}/shared`, undefined, { 'if-match': '*' })).status).toBe(204);
    expect(await names(writer)).toEqual(['shared-two']);
    expect(await within1s(reader, (listed) => !listed.includes('shared'))).toEqual(['shared-two']);
  });

  it('enforces a policy written on one replica at the other within 1 s', async () => {
    const [writer, reader] = replicas as [PlatformApp, PlatformApp];
    const bob = await provider.mint({ sub: 'bob', claims: { groups: ['sales'] } });
    const unrestricted = async () => {
      const answer = await reader.http.inject({ method: 'GET', url: '/ai-gateway/v1/whoami', headers: { authorization: `Bearer ${bob}` } });
      expect(answer.statusCode, answer.body).toBe(200);
      return (JSON.parse(answer.body) as { unrestrictedModels: boolean }).unrestrictedModels;
    };
    const within1s = async (expected: boolean) => {
      const deadline = Date.now() + 1_000;
      let seen = await unrestricted();
      while (seen !== expected && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        seen = await unrestricted();
      }
      return seen;
    };
    for (const name of await names(writer)) expect((await call(writer, 'DELETE', `${BASE}/${name}`, undefined, { 'if-match': '*' })).status).toBe(204);
    expect(await within1s(true)).toBe(true);
    const body = { metadata: { name: 'engineers-only' }, spec: { gatewayRef: { name: 'toolyard' }, principalMatchers: [{ claims: { groups: 'eng' } }] } };
    expect((await call(writer, 'POST', BASE, body)).status).toBe(201);
    expect(await within1s(false)).toBe(false);
    expect((await call(writer, 'DELETE', `${BASE}/engineers-only`, undefined, { 'if-match': '*' })).status).toBe(204);
    expect(await within1s(true)).toBe(true);
  });
});
