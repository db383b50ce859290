import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabaseTargets } from '../../src/core/db/database-testing.js';
import type { PlatformApp } from '../../src/platform/app.js';
import type { PolicyConnector } from '../../src/platform/connector-policies/decisions.js';
import type { OidcProvider } from '../helpers/oidc-provider.js';
import { startReplicas, startTestProvider } from './helpers.js';

/** Asks until the replica's decision is `expected` (the change reaches it through PostgreSQL's notification). */
async function eventually(decide: () => Promise<boolean>, expected: boolean): Promise<boolean> {
  let answer = await decide();
  for (let attempt = 0; attempt < 500 && answer !== expected; attempt++) {
    await new Promise((resolve) => setTimeout(resolve, 10));
    answer = await decide();
  }
  return answer;
}

// two replicas need a database they share: PostgreSQL (PGlite belongs to one process)
describe.each(testDatabaseTargets().filter((target) => target.name === 'postgres').map((target) => [target.name, target] as const))('connector policy decisions on two replicas (%s)', (_name, target) => {
  let provider: OidcProvider;
  let created: Awaited<ReturnType<typeof target.create>>;
  const replicas: PlatformApp[] = [];
  let admin = '';

  const call = async <T>(on: PlatformApp, method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, body?: unknown, headers: Record<string, string> = {}) => {
    const response = await on.http.inject({ method, url, headers: { authorization: `Bearer ${admin}`, ...headers }, ...(body !== undefined && { payload: body as object }) });
    expect(response.statusCode, response.body).toBeLessThan(300);
    return JSON.parse(response.body) as T;
  };

  beforeAll(async () => {
    provider = await startTestProvider();
    created = await target.create();
    replicas.push(...(await startReplicas(provider, created)));
    admin = await provider.mint({ sub: 'root', claims: { roles: ['admin'] } });
  });
  afterAll(async () => {
    for (const app of replicas) await app.close();
    await created.drop();
    await provider.close();
  });

  it('applies a policy write and a membership change made on one replica to the decisions of the other', async () => {
    const [writer, reader] = replicas as [PlatformApp, PlatformApp];
    const alice = await provider.mint({ sub: 'alice', claims: { preferred_username: 'alice' } });
    await writer.http.inject({ method: 'GET', url: '/v1/gateways', headers: { authorization: `Bearer ${alice}` } });
    const userId = (await call<{ items: { id: string }[] }>(writer, 'GET', '/v1/users?user_name=alice')).items[0]?.id ?? '';
    const group = await call<{ id: string }>(writer, 'POST', '/v1/groups', { name: 'team' });
    const connector = await call<PolicyConnector>(writer, 'POST', '/v1/gateways/default/connectors', {
      name: 'Replicated',
      endpoint: 'https://mcp.example.invalid/replicated',
      transport: 'streamable-http',
      auth: { type: 'none' },
    });
    const decide = () => reader.features.decisions.canUse(userId, connector);
    expect(await decide()).toBe(false);

    await call(writer, 'PUT', `/v1/connectors/${connector.id}/policy/groups`, { group_ids: [group.id] }, { 'if-match': '*' });
    await call(writer, 'POST', `/v1/groups/${group.id}/users/${userId}`);
    expect(await eventually(decide, true)).toBe(true);

    await call(writer, 'DELETE', `/v1/groups/${group.id}/users/${userId}`);
    expect(await eventually(decide, false)).toBe(false);

    await call(writer, 'POST', `/v1/groups/${group.id}/users/${userId}`);
    expect(await eventually(decide, true)).toBe(true);
    await call(writer, 'POST', `/v1/connectors/${connector.id}/policy/document-mode`);
    await call(writer, 'PUT', `/v1/connectors/${connector.id}/policy/document`, { document: 'forbid (principal, action, resource);' });
    expect(await eventually(decide, false)).toBe(false);
  });
});
