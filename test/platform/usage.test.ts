import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabaseTargets } from '../../src/core/db/database-testing.js';
import type { Charge, UsageEvent } from '../../src/platform/usage/schemas.js';
import { manualClock } from '../helpers/clock.js';
import { nowSeconds, type OidcProvider } from '../helpers/oidc-provider.js';
import { createTestPlatform, oauthWith, startTestProvider, type TestPlatform } from './helpers.js';
import { seedCharges, seedEvents } from './usage-seed.js';

type ChargePage = { charges: Charge[]; next_cursor?: string; prev_cursor?: string };
type EventPage = { events: UsageEvent[]; next_cursor?: string; prev_cursor?: string };

const GROUP = '6f1c2a9e-0000-4000-8000-000000000001';

// now 2026-11-25T12:00Z with 31 days of retention: the horizon is 2026-10-26T00:00Z
describe.each(testDatabaseTargets().map((target) => [target.name, target] as const))('charges and usage events (%s)', (_name, target) => {
  let provider: OidcProvider;
  let platform: TestPlatform;
  const clock = manualClock(new Date('2026-11-25T12:00:00.000Z'));
  const tokens = { billing: '', auditor: '', directoryAdmin: '', alice: '', bob: '' };
  const ids = { latest: '', bobsTiny: '', atHorizon: '' };

  const get = <T>(url: string, token = tokens.billing) => platform.call<T>('GET', url, { token });
  const times = (page: { charges: Charge[] }) => page.charges.map((charge) => `${charge.event_time} ${charge.scope} ${charge.subject_id}`);

  beforeAll(async () => {
    provider = await startTestProvider();
    platform = await createTestPlatform({ target, clock, config: { auth: oauthWith(provider), usage: { retentionDays: 31 } } });
    const exp = nowSeconds() + 24 * 3600;
    tokens.billing = await provider.mint({ sub: 'bill', claims: { roles: ['billingAdmin'] }, exp });
    tokens.auditor = await provider.mint({ sub: 'audrey', claims: { roles: ['auditor'] }, exp });
    tokens.directoryAdmin = await provider.mint({ sub: 'dora', claims: { roles: ['directoryAdmin'] }, exp });
    tokens.alice = await provider.mint({ sub: 'alice', exp });
    tokens.bob = await provider.mint({ sub: 'bob', exp });

    const db = platform.database.db;
    const [latest] = await seedCharges(db, [{ at: '2026-11-25T10:00:00.000Z', usd: '0.5', subject: 'alice', id: 'ffffffff-0000-4000-8000-000000000001' }]);
    await seedCharges(db, [
      { at: '2026-11-24T09:00:00.000Z', usd: '1.25', subject: 'alice', model: 'claude-sonnet-4-5', provider: 'anthropic', id: '00000000-0000-4000-8000-00000000000a' },
      { at: '2026-11-24T09:00:00.000Z', usd: '1.25', subject: 'alice', model: 'claude-sonnet-4-5', provider: 'anthropic', scope: 'group', subjectId: GROUP, id: '00000000-0000-4000-8000-00000000000b' },
      { at: '2026-11-24T08:00:00.000Z', usd: '2', subject: 'bob' },
      { at: '2026-11-10T12:00:00.000Z', usd: '0.0000015', subject: 'bob', id: '00000000-0000-4000-8000-00000000000c' },
      { at: '2026-10-26T00:00:00.000Z', usd: '0.10', subject: 'alice', id: '00000000-0000-4000-8000-00000000000d' },
      // before the horizon: never returned
      { at: '2026-10-25T23:59:59.999Z', usd: '9', subject: 'alice' },
      { at: '2026-09-01T00:00:00.000Z', usd: '9', subject: 'bob' },
    ]);
    ids.latest = String(latest?.id);
    ids.bobsTiny = '00000000-0000-4000-8000-00000000000c';
    ids.atHorizon = '00000000-0000-4000-8000-00000000000d';
    await seedEvents(db, [
      { at: '2026-11-25T10:00:00.000Z', subject: 'alice', outcome: 'delivered', id: '11111111-0000-4000-8000-000000000001' },
      { at: '2026-11-25T09:00:00.000Z', subject: 'alice', outcome: 'blocked_downstream', id: '11111111-0000-4000-8000-000000000002' },
      { at: '2026-11-25T08:00:00.000Z', subject: 'bob', outcome: 'client_disconnect', model: 'gemini-2.5-pro', id: '11111111-0000-4000-8000-000000000003' },
      { at: '2026-11-20T08:00:00.000Z', subject: 'bob', outcome: 'upstream_error', id: '11111111-0000-4000-8000-000000000004' },
      { at: '2026-10-01T08:00:00.000Z', subject: 'alice', outcome: 'delivered', id: '11111111-0000-4000-8000-000000000005' },
    ]);
  });
  afterAll(async () => {
    await platform.dispose();
    await provider.close();
  });

  it('lists every charge within retention, newest first, each record complete with money as the contract renders it', async () => {
    const response = await get<ChargePage>('/v1/charges');
    expect(response.status, response.text).toBe(200);
    expect(times(response.body)).toEqual([
      '2026-11-25T10:00:00.000Z user alice',
      '2026-11-24T09:00:00.000Z group 6f1c2a9e-0000-4000-8000-000000000001',
      '2026-11-24T09:00:00.000Z user alice',
      '2026-11-24T08:00:00.000Z user bob',
      '2026-11-10T12:00:00.000Z user bob',
      '2026-10-26T00:00:00.000Z user alice',
    ]);
    expect(response.body.next_cursor).toBeUndefined();
    expect(response.body.prev_cursor).toBeUndefined();
    const first = response.body.charges[0];
    expect(first).toEqual({
      auth_subject: 'alice',
      charged_usd: '0.50',
      event_id: expect.stringMatching(/^[0-9a-f-]{36}$/) as unknown,
      event_time: '2026-11-25T10:00:00.000Z',
      id: ids.latest,
      interaction_id: first?.event_id,
      model: 'gpt-4o',
      period_end: '2026-11-26T00:00:00.000Z',
      period_start: '2026-11-25T00:00:00.000Z',
      pricing_catalog_id: '00000000-0000-4000-8000-0000000000c1',
      provider: 'openai',
      scope: 'user',
      subject_id: 'alice',
    });
    expect(response.body.charges.map((charge) => charge.charged_usd)).toEqual(['0.50', '1.25', '1.25', '2.00', '0.0000015', '0.10']);
  });

  it('filters charges by time (RFC 3339 or a date), model, scope, subject and auth subject', async () => {
    const ofUrl = async (query: string) => {
      const response = await get<ChargePage>(`/v1/charges?${query}`);
      expect(response.status, response.text).toBe(200);
      return times(response.body);
    };
    expect(await ofUrl('from=2026-11-24&to=2026-11-24T09:00:00.000Z')).toEqual(['2026-11-24T08:00:00.000Z user bob']);
    expect(await ofUrl('from=2026-11-24T09:00:00Z&to=2026-11-25')).toEqual(['2026-11-24T09:00:00.000Z group 6f1c2a9e-0000-4000-8000-000000000001', '2026-11-24T09:00:00.000Z user alice']);
    expect(await ofUrl('model=claude-sonnet-4-5&scope=user')).toEqual(['2026-11-24T09:00:00.000Z user alice']);
    expect(await ofUrl(`scope=group&subject_id=${GROUP}`)).toEqual(['2026-11-24T09:00:00.000Z group 6f1c2a9e-0000-4000-8000-000000000001']);
    expect(await ofUrl('subject_id=bob')).toEqual(['2026-11-24T08:00:00.000Z user bob', '2026-11-10T12:00:00.000Z user bob']);
    expect(await ofUrl('auth_subject=alice&to=2026-11-24T09:00:00.001Z&from=2026-11-24T09:00:00%2B00:00')).toHaveLength(2);
    // a from before the horizon still returns nothing older than it
    expect(await ofUrl('from=2026-01-01&subject_id=alice')).toEqual(['2026-11-25T10:00:00.000Z user alice', '2026-11-24T09:00:00.000Z user alice', '2026-10-26T00:00:00.000Z user alice']);
    expect(await ofUrl('to=2026-10-26T00:00:00.001Z')).toEqual(['2026-10-26T00:00:00.000Z user alice']);
  });

  it('refuses bad filters with a 400 naming them', async () => {
    const refusal = async (query: string, pattern: RegExp) => {
      const response = await get<{ error: string }>(`/v1/charges?${query}`);
      expect(response.status, response.text).toBe(400);
      expect(response.body.error).toMatch(pattern);
    };
    await refusal('from=2026-11-25&to=2026-11-25', /^from: must be before to/);
    await refusal('from=2026-11-25&to=2026-11-24', /^from: must be before to/);
    await refusal('from=yesterday', /^from: .*RFC 3339/);
    await refusal('to=2026-02-30', /^to: .*not a date/);
    await refusal('to=2026-11-25T10:00:00', /^to: .*RFC 3339/);
    await refusal('scope=team', /^scope: must be one of "user", "group"/);
    await refusal('limit=0', /^limit: /);
    await refusal('limit=ten', /^limit: /);
    await refusal('outcome=delivered', /^outcome: unknown field/);
  });

  it('pages forwards with next_cursor and backwards with before = prev_cursor, and refuses altered, foreign or doubled cursors', async () => {
    const all = (await get<ChargePage>('/v1/charges')).body.charges.map((charge) => charge.id);
    const pages: string[][] = [];
    let url = '/v1/charges?limit=2';
    const prevs: (string | undefined)[] = [];
    for (;;) {
      const response = await get<ChargePage>(url);
      expect(response.status, response.text).toBe(200);
      pages.push(response.body.charges.map((charge) => charge.id));
      prevs.push(response.body.prev_cursor);
      if (response.body.next_cursor === undefined) break;
      url = `/v1/charges?limit=2&cursor=${response.body.next_cursor}`;
    }
    expect(pages).toEqual([all.slice(0, 2), all.slice(2, 4), all.slice(4, 6)]);
    expect(prevs[0]).toBeUndefined();

    // back from the last page: the middle one, then the first, which has no prev_cursor
    const middle = await get<ChargePage>(`/v1/charges?limit=2&before=${String(prevs[2])}`);
    expect(middle.body.charges.map((charge) => charge.id)).toEqual(all.slice(2, 4));
    expect(middle.body.next_cursor).toBeDefined();
    const first = await get<ChargePage>(`/v1/charges?limit=2&before=${String(middle.body.prev_cursor)}`);
    expect(first.body.charges.map((charge) => charge.id)).toEqual(all.slice(0, 2));
    expect(first.body.prev_cursor).toBeUndefined();
    expect(first.body.next_cursor).toBeDefined();
    const again = await get<ChargePage>(`/v1/charges?limit=2&cursor=${String(first.body.next_cursor)}`);
    expect(again.body.charges.map((charge) => charge.id)).toEqual(all.slice(2, 4));

    const cursor = String(middle.body.next_cursor);
    const [list, time, id] = JSON.parse(Buffer.from(cursor, 'base64url').toString()) as string[];
    const altered = Buffer.from(JSON.stringify([list, time, `${String(id).slice(0, -1)}x`])).toString('base64url');
    const foreign = Buffer.from(JSON.stringify(['usage-events', time, id])).toString('base64url');
    for (const [query, pattern] of [
      [`cursor=${altered}`, /^cursor: not a cursor of this list/],
      [`cursor=${cursor.slice(0, -2)}`, /^cursor: not a cursor of this list/],
      [`cursor=${foreign}`, /^cursor: not a cursor of this list/],
      [`before=${foreign}`, /^before: not a cursor of this list/],
      [`cursor=${cursor}&before=${cursor}`, /^cursor and before: send one of them, not both/],
    ] as const) {
      const response = await get<{ error: string }>(`/v1/charges?${query}`);
      expect(response.status, query).toBe(400);
      expect(response.body.error).toMatch(pattern);
    }
    // the admin list's cursor is not one of my own list
    const mine = await get<{ error: string }>(`/v1/me/charges?cursor=${cursor}`, tokens.alice);
    expect(mine.status).toBe(400);
  });

  it("shows each caller only their own charges, user and group alike, and keeps every user's list to billing admins and auditors", async () => {
    const alice = await get<ChargePage>('/v1/me/charges', tokens.alice);
    expect(alice.status, alice.text).toBe(200);
    expect(times(alice.body)).toEqual([
      '2026-11-25T10:00:00.000Z user alice',
      '2026-11-24T09:00:00.000Z group 6f1c2a9e-0000-4000-8000-000000000001',
      '2026-11-24T09:00:00.000Z user alice',
      '2026-10-26T00:00:00.000Z user alice',
    ]);
    const bob = await get<ChargePage>('/v1/me/charges?model=gpt-4o&from=2026-11-01', tokens.bob);
    expect(times(bob.body)).toEqual(['2026-11-24T08:00:00.000Z user bob', '2026-11-10T12:00:00.000Z user bob']);
    // another owner's filters are not parameters of my own list
    expect((await get('/v1/me/charges?subject_id=bob', tokens.alice)).status).toBe(400);

    expect((await get('/v1/charges', tokens.auditor)).status).toBe(200);
    for (const token of [tokens.alice, tokens.directoryAdmin]) {
      const refused = await get<{ error: string }>('/v1/charges', token);
      expect(refused.status).toBe(403);
      expect(refused.body.error).toMatch(/billingAdmin or auditor/);
      expect((await get('/v1/usage-events', token)).status).toBe(403);
    }
    expect((await platform.call('GET', '/v1/me/charges')).status).toBe(401);
  });

  it('refuses own reads to a deactivated directory user', async () => {
    const dave = await provider.mint({ sub: 'dave', exp: nowSeconds() + 3600 });
    expect((await get('/v1/me/charges', dave)).status).toBe(200);
    await platform.database.db.updateTable('users').set({ active: false }).where('user_name', '=', 'dave').execute();
    for (const path of ['/v1/me/charges', '/v1/me/usage-events', '/v1/me/spend/series']) {
      expect((await get(path, dave)).status, path).toBe(401);
    }
  });

  it('clamps limits to 200 for own lists and 10000 for every user’s', async () => {
    await seedCharges(
      platform.database.db,
      Array.from({ length: 201 }, (_, index) => ({ at: new Date(Date.parse('2026-11-01T00:00:00.000Z') + index * 1000).toISOString(), usd: '0.01', subject: 'carol' })),
    );
    const carol = await provider.mint({ sub: 'carol', exp: nowSeconds() + 3600 });
    const own = await get<ChargePage>('/v1/me/charges?limit=100000', carol);
    expect(own.status, own.text).toBe(200);
    expect(own.body.charges).toHaveLength(200);
    expect(own.body.next_cursor).toBeDefined();
    expect((await get<ChargePage>('/v1/me/charges', carol)).body.charges).toHaveLength(50);
    const admin = await get<ChargePage>('/v1/charges?auth_subject=carol&limit=100000');
    expect(admin.body.charges).toHaveLength(201);
    expect(admin.body.next_cursor).toBeUndefined();
    await platform.database.db.deleteFrom('charges').where('auth_subject', '=', 'carol').execute();
  });

  it('lists usage events with their filters, own events only of the caller, nothing older than the horizon', async () => {
    const all = await get<EventPage>('/v1/usage-events');
    expect(all.status, all.text).toBe(200);
    expect(all.body.events.map((event) => event.id)).toEqual([
      '11111111-0000-4000-8000-000000000001',
      '11111111-0000-4000-8000-000000000002',
      '11111111-0000-4000-8000-000000000003',
      '11111111-0000-4000-8000-000000000004',
    ]);
    expect(all.body.events[0]).toEqual({
      ai_policy: { decision: 'allowed', policies: [] },
      auth_issuer: 'https://issuer.example',
      auth_subject: 'alice',
      duration_ms: 120,
      event_time: '2026-11-25T10:00:00.000Z',
      id: '11111111-0000-4000-8000-000000000001',
      ingest_time: '2026-11-25T10:00:01.500Z',
      interaction_id: '11111111-0000-4000-8000-000000000001',
      model: 'gpt-4o',
      outcome: 'delivered',
      platform_groups: [],
      platform_user_id: null,
      provider: 'openai',
      raw_usage: { prompt_tokens: 10, completion_tokens: 5 },
      requested_model: 'gpt-4o',
      route: '/llm/v1/chat/completions',
      upstream_status: 200,
      virtual_key_id: null,
    });
    const ids = async (url: string, token = tokens.billing) => {
      const response = await get<EventPage>(url, token);
      expect(response.status, response.text).toBe(200);
      return response.body.events.map((event) => event.id.slice(-1));
    };
    expect(await ids('/v1/usage-events?outcome=upstream_error')).toEqual(['4']);
    expect(await ids('/v1/usage-events?auth_subject=bob&model=gemini-2.5-pro')).toEqual(['3']);
    expect(await ids('/v1/usage-events?from=2026-11-25T08:30:00Z&to=2026-11-25T10:00:00Z')).toEqual(['2']);
    expect(await ids('/v1/usage-events?limit=1&cursor=' + String((await get<EventPage>('/v1/usage-events?limit=1')).body.next_cursor))).toEqual(['2']);
    expect(await ids('/v1/me/usage-events', tokens.alice)).toEqual(['1', '2']);
    expect(await ids('/v1/me/usage-events?outcome=client_disconnect', tokens.bob)).toEqual(['3']);
    expect(await ids('/v1/me/usage-events?outcome=delivered', tokens.bob)).toEqual([]);
    const refused = await get<{ error: string }>('/v1/usage-events?outcome=done');
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatch(/^outcome: must be one of "delivered", "blocked_downstream", "client_disconnect", "upstream_error"/);
    expect((await get('/v1/me/usage-events?auth_subject=bob', tokens.alice)).status).toBe(400);
  });
});
