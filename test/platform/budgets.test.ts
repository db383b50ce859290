import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabaseTargets } from '../../src/core/db/database-testing.js';
import type { BudgetCollection } from '../../src/platform/budgets/schemas.js';
import { TOPICS } from '../../src/platform/context.js';
import { nowSeconds, type OidcProvider } from '../helpers/oidc-provider.js';
import { createTestPlatform, oauthWith, startTestProvider, type TestPlatform } from './helpers.js';

type Error = { error: string };
type AuditEvents = { events: { action: string; target: { type: string; id: string | null } }[] };
const EMPTY = { default_user: { day_limit_usd: null, month_limit_usd: null }, users: [], groups: [] };

describe.each(testDatabaseTargets().map((target) => [target.name, target] as const))('budget collection (%s)', (_name, target) => {
  let provider: OidcProvider;
  let platform: TestPlatform;
  const tokens = { billing: '', auditor: '', admin: '', alice: '', directoryAdmin: '' };
  const groups = { platform: '', research: '' };

  const get = <T>(url: string, token = tokens.billing) => platform.call<T>('GET', url, { token });
  const put = <T>(url: string, body: unknown, headers: Record<string, string> = {}, token = tokens.billing) => platform.call<T>('PUT', url, { token, body, headers });
  const etag = async () => String((await get('/v1/budgets')).headers.etag);

  beforeAll(async () => {
    provider = await startTestProvider();
    platform = await createTestPlatform({ target, config: { auth: oauthWith(provider) } });
    const exp = nowSeconds() + 3600;
    tokens.billing = await provider.mint({ sub: 'bill', claims: { roles: ['billingAdmin'] }, exp });
    tokens.auditor = await provider.mint({ sub: 'audrey', claims: { roles: ['auditor'] }, exp });
    tokens.admin = await provider.mint({ sub: 'root', claims: { roles: ['admin'] }, exp });
    tokens.directoryAdmin = await provider.mint({ sub: 'dora', claims: { roles: ['directoryAdmin'] }, exp });
    tokens.alice = await provider.mint({ sub: 'alice', exp });
    for (const name of ['platform', 'research'] as const) {
      const response = await platform.call<{ id: string }>('POST', '/v1/groups', { token: tokens.directoryAdmin, body: { name } });
      expect(response.status, response.text).toBe(201);
      groups[name] = response.body.id;
    }
  });
  afterAll(async () => {
    await platform.dispose();
    await provider.close();
  });

  it('starts empty, with a strong ETag', async () => {
    const response = await get<BudgetCollection>('/v1/budgets');
    expect(response.status).toBe(200);
    expect(response.body).toEqual(EMPTY);
    expect(response.headers.etag).toMatch(/^"[0-9a-f]+"$/);
  });

  it('replaces the collection: money rendered, lists sorted, items without limits dropped, a new ETag', async () => {
    const before = await etag();
    const body = {
      default_user: { day_limit_usd: '5', month_limit_usd: '100.500' },
      users: [
        { subject_id: 'zoe', day_limit_usd: '1.25' },
        { subject_id: 'alice', day_limit_usd: null, month_limit_usd: '0.000001' },
        { subject_id: 'nobody', day_limit_usd: null, month_limit_usd: null },
      ],
      groups: [{ subject_id: groups.research, month_limit_usd: '300' }, { subject_id: groups.platform.toUpperCase(), day_limit_usd: '10' }],
    };
    const response = await put<BudgetCollection>('/v1/budgets', body, { 'if-match': before });
    expect(response.status, response.text).toBe(200);
    const expected = {
      default_user: { day_limit_usd: '5.00', month_limit_usd: '100.50' },
      users: [
        { subject_id: 'alice', day_limit_usd: null, month_limit_usd: '0.000001' },
        { subject_id: 'zoe', day_limit_usd: '1.25', month_limit_usd: null },
      ],
      groups: [
        { subject_id: groups.platform, day_limit_usd: '10.00', month_limit_usd: null },
        { subject_id: groups.research, day_limit_usd: null, month_limit_usd: '300.00' },
      ].sort((a, b) => (a.subject_id < b.subject_id ? -1 : 1)),
    };
    expect(response.body).toEqual(expected);
    expect(response.headers.etag).not.toBe(before);
    const read = await get<BudgetCollection>('/v1/budgets', tokens.auditor);
    expect(read.body).toEqual(expected);
    expect(read.headers.etag).toBe(response.headers.etag);
  });

  it('refuses a stale If-Match with 412 and the current ETag, and accepts *', async () => {
    const stale = await etag();
    expect((await put('/v1/budgets/users/zoe', { day_limit_usd: '2' })).status).toBe(200);
    const current = await etag();
    const refused = await put<Error>('/v1/budgets/users/zoe', { day_limit_usd: '3' }, { 'if-match': stale });
    expect(refused.status).toBe(412);
    expect(refused.headers.etag).toBe(current);
    expect(refused.body.error).toMatch(/^If-Match: /);
    const forced = await put<BudgetCollection>('/v1/budgets/users/zoe', { day_limit_usd: '3' }, { 'if-match': '*' });
    expect(forced.status).toBe(200);
    expect(forced.body.users.find((user) => user.subject_id === 'zoe')).toEqual({ subject_id: 'zoe', day_limit_usd: '3.00', month_limit_usd: null });
    expect((await put('/v1/budgets', EMPTY, { 'if-match': stale })).status).toBe(412);
  });

  it('puts and removes a user budget by percent-encoded OIDC subject', async () => {
    const subject = 'auth0|user/42 é';
    const url = `/v1/budgets/users/${encodeURIComponent(subject)}`;
    const set = await put<BudgetCollection>(url, { month_limit_usd: '7.5' });
    expect(set.status, set.text).toBe(200);
    expect(set.body.users).toContainEqual({ subject_id: subject, day_limit_usd: null, month_limit_usd: '7.50' });
    const removed = await put<BudgetCollection>(url, { day_limit_usd: null });
    expect(removed.status).toBe(200);
    expect(removed.body.users.map((user) => user.subject_id)).not.toContain(subject);
  });

  it('puts a group budget only for a group of the directory', async () => {
    const set = await put<BudgetCollection>(`/v1/budgets/groups/${groups.research}`, { day_limit_usd: '1', month_limit_usd: '2' });
    expect(set.status).toBe(200);
    expect(set.body.groups).toContainEqual({ subject_id: groups.research, day_limit_usd: '1.00', month_limit_usd: '2.00' });
    const unknown = await put<Error>('/v1/budgets/groups/00000000-0000-4000-8000-000000000000', { day_limit_usd: '1' });
    expect(unknown).toMatchObject({ status: 400, body: { error: 'id: no directory group has the id "00000000-0000-4000-8000-000000000000"' } });
    expect((await put<Error>('/v1/budgets/groups/platform', { day_limit_usd: '1' })).body.error).toMatch(/^id: "platform" is not a group id/);
    const inCollection = await put<Error>('/v1/budgets', { ...EMPTY, groups: [{ subject_id: '00000000-0000-4000-8000-000000000000', day_limit_usd: '1' }] });
    expect(inCollection).toMatchObject({ status: 400, body: { error: expect.stringMatching(/^groups\[0\]\.subject_id: no directory group/) as unknown } });
  });

  it('refuses money that is not a decimal string, naming the field', async () => {
    for (const value of [5, '-1', '1e3', '1.0000000000001', '', '+2']) {
      const response = await put<Error>('/v1/budgets/users/alice', { day_limit_usd: value });
      expect(response.status, JSON.stringify(value)).toBe(400);
      expect(response.body.error).toMatch(/^body\.day_limit_usd: must be a decimal string/);
    }
    const nested = await put<Error>('/v1/budgets', { ...EMPTY, users: [{ subject_id: 'a', month_limit_usd: 12 }] });
    expect(nested.body.error).toMatch(/^users\[0\]\.month_limit_usd: must be a decimal string/);
    expect((await put<Error>('/v1/budgets', { ...EMPTY, default_user: { day_limit_usd: '1 ' } })).body.error).toMatch(/^default_user\.day_limit_usd: /);
  });

  it('refuses duplicates, unknown fields and an incomplete collection', async () => {
    const before = await get<BudgetCollection>('/v1/budgets');
    const duplicate = await put<Error>('/v1/budgets', { ...EMPTY, users: [{ subject_id: 'a', day_limit_usd: '1' }, { subject_id: 'a', month_limit_usd: '1' }] });
    expect(duplicate).toMatchObject({ status: 400, body: { error: 'users[1].subject_id: "a" appears more than once in users' } });
    const sameGroup = await put<Error>('/v1/budgets', { ...EMPTY, groups: [{ subject_id: groups.platform, day_limit_usd: '1' }, { subject_id: groups.platform.toUpperCase(), day_limit_usd: '2' }] });
    expect(sameGroup.body.error).toMatch(/^groups\[1\]\.subject_id: .* appears more than once/);
    expect((await put<Error>('/v1/budgets/users/alice', { day_limit: '1' })).body.error).toBe('body.day_limit: unknown field');
    expect((await put<Error>('/v1/budgets', { users: [], groups: [] })).body.error).toBe('body.default_user: is required');
    expect(await get<BudgetCollection>('/v1/budgets')).toMatchObject({ body: before.body, headers: { etag: before.headers.etag } });
  });

  it('lets billing administrators write and auditors read; no one else', async () => {
    expect((await get('/v1/budgets', tokens.admin)).status).toBe(200);
    expect((await get('/v1/budgets', tokens.auditor)).status).toBe(200);
    for (const token of [tokens.alice, tokens.directoryAdmin]) expect((await get('/v1/budgets', token)).status).toBe(403);
    for (const token of [tokens.auditor, tokens.alice, tokens.directoryAdmin]) {
      expect((await put('/v1/budgets/users/alice', { day_limit_usd: '1' }, {}, token)).status).toBe(403);
      expect((await put(`/v1/budgets/groups/${groups.platform}`, { day_limit_usd: '1' }, {}, token)).status).toBe(403);
      expect((await put('/v1/budgets', EMPTY, {}, token)).status).toBe(403);
    }
    expect((await put('/v1/budgets', EMPTY, {}, tokens.admin)).status).toBe(200);
    expect((await platform.call('GET', '/v1/budgets')).status).toBe(401);
  });

  it('audits every write and publishes it on the change feed', async () => {
    const generation = async () => {
      const { rows } = await sql<{ generation: number | string }>`select generation from change_generations where topic = ${TOPICS.budgets}`.execute(platform.database.db);
      return Number(rows[0]?.generation ?? 0);
    };
    const before = await generation();
    await put('/v1/budgets/users/audited', { day_limit_usd: '4' });
    const audit = await get<AuditEvents>('/v1/audit-events?limit=5', tokens.admin);
    expect(audit.body.events[0]).toMatchObject({ action: 'budgets.user.put', target: { type: 'budget_user', id: 'audited' } });
    expect(await generation()).toBe(before + 1);
  });
});
