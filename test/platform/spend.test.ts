import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabaseTargets } from '../../src/core/db/database-testing.js';
import type { Series } from '../../src/platform/usage/schemas.js';
import { manualClock } from '../helpers/clock.js';
import { nowSeconds, type OidcProvider } from '../helpers/oidc-provider.js';
import { createTestPlatform, oauthWith, startTestProvider, type TestPlatform } from './helpers.js';
import { seedCharges } from './usage-seed.js';

const GROUP = '6f1c2a9e-0000-4000-8000-000000000001';
const ZOE = 'Zoë, "the" admin';
const csv = (...lines: string[]) => lines.map((line) => `${line}\r\n`).join('');

// now Wednesday 2026-11-25T12:00Z; 31 days of retention: the horizon is Monday 2026-10-26T00:00Z
describe.each(testDatabaseTargets().map((target) => [target.name, target] as const))('spend series and export (%s)', (_name, target) => {
  let provider: OidcProvider;
  let platform: TestPlatform;
  const clock = manualClock(new Date('2026-11-25T12:00:00.000Z'));
  const tokens = { billing: '', auditor: '', alice: '' };

  const get = <T>(url: string, token = tokens.billing) => platform.call<T>('GET', url, { token });
  const series = async (url: string, token = tokens.billing) => {
    const response = await get<Series>(url, token);
    expect(response.status, response.text).toBe(200);
    return response.body;
  };
  const spent = (body: Series) => Object.fromEntries(body.buckets.filter((bucket) => bucket.usd !== '0.00').map((bucket) => [bucket.date, bucket.usd]));
  const exported = async (query: string) => {
    const response = await get(`/v1/spend/export${query}`);
    expect(response.status, response.text).toBe(200);
    expect(response.headers['content-type']).toBe('text/csv; charset=utf-8');
    return { text: response.text, from: response.headers['x-spend-export-from'], to: response.headers['x-spend-export-to'] };
  };

  beforeAll(async () => {
    provider = await startTestProvider();
    platform = await createTestPlatform({ target, clock, config: { auth: oauthWith(provider), usage: { retentionDays: 31 }, experiments: { spendExport: true } } });
    const exp = nowSeconds() + 24 * 3600;
    tokens.billing = await provider.mint({ sub: 'bill', claims: { roles: ['billingAdmin'] }, exp });
    tokens.auditor = await provider.mint({ sub: 'audrey', claims: { roles: ['auditor'] }, exp });
    tokens.alice = await provider.mint({ sub: 'alice', exp });
    const claude = { model: 'claude-sonnet-4-5', provider: 'anthropic' };
    await seedCharges(platform.database.db, [
      { at: '2026-11-25T01:00:00.000Z', usd: '0.50', subject: 'alice' },
      { at: '2026-11-25T02:00:00.000Z', usd: '0.25', subject: 'alice' },
      { at: '2026-11-24T10:00:00.000Z', usd: '1.5', subject: 'alice', ...claude },
      { at: '2026-11-24T10:00:00.000Z', usd: '1.5', subject: 'alice', ...claude, scope: 'group', subjectId: GROUP },
      { at: '2026-11-24T11:00:00.000Z', usd: '1.5', subject: 'bob' },
      { at: '2026-11-24T12:00:00.000Z', usd: '0.0000015', subject: ZOE, model: 'gemini-2.5-pro', provider: 'gemini' },
      { at: '2026-11-24T13:00:00.000Z', usd: '1.5', subject: 'Bob' },
      { at: '2026-11-18T11:00:00.000Z', usd: '2', subject: 'alice' },
      { at: '2026-11-18T13:00:00.000Z', usd: '3', subject: 'alice' },
      { at: '2026-11-01T00:00:00.000Z', usd: '4', subject: 'bob' },
      { at: '2026-10-31T23:59:59.999Z', usd: '5', subject: 'bob' },
      // before the horizon, and after today: never counted
      { at: '2026-10-25T12:00:00.000Z', usd: '100', subject: 'bob' },
      { at: '2026-11-26T00:00:00.000Z', usd: '7', subject: 'alice' },
    ]);
  });
  afterAll(async () => {
    await platform.dispose();
    await provider.close();
  });

  it('sums user charges per UTC day over the last 30 days including today, every day present', async () => {
    const body = await series('/v1/spend/series');
    expect(body.from).toBe('2026-10-27');
    expect(body.to).toBe('2026-11-26');
    expect(body.granularity).toBe('day');
    expect(body.buckets).toHaveLength(30);
    expect(body.buckets[0]).toEqual({ date: '2026-10-27', usd: '0.00' });
    expect(body.buckets.at(-1)).toEqual({ date: '2026-11-25', usd: '0.75' });
    expect(spent(body)).toEqual({ '2026-10-31': '5.00', '2026-11-01': '4.00', '2026-11-18': '5.00', '2026-11-24': '4.5000015', '2026-11-25': '0.75' });
    expect((await get('/v1/spend/series', tokens.auditor)).status).toBe(200);
    expect((await get('/v1/spend/series', tokens.alice)).status).toBe(403);
  });

  it('filters the series by scope, subject and model, and clamps its window to the horizon and tomorrow', async () => {
    expect(spent(await series(`/v1/spend/series?scope=group&subject_id=${GROUP}`))).toEqual({ '2026-11-24': '1.50' });
    expect(spent(await series('/v1/spend/series?subject_id=bob&granularity=day'))).toEqual({ '2026-10-31': '5.00', '2026-11-01': '4.00', '2026-11-24': '1.50' });
    expect(spent(await series('/v1/spend/series?model=gemini-2.5-pro'))).toEqual({ '2026-11-24': '0.0000015' });
    expect(await series('/v1/spend/series?from=2026-11-24&to=2026-11-25')).toEqual({ buckets: [{ date: '2026-11-24', usd: '4.5000015' }], from: '2026-11-24', granularity: 'day', to: '2026-11-25' });

    const wide = await series('/v1/spend/series?from=2020-01-01&to=2030-01-01');
    expect([wide.from, wide.to, wide.buckets.length]).toEqual(['2026-10-26', '2026-11-26', 31]);
    expect(spent(wide)['2026-10-25']).toBeUndefined();
    // only `to` given: the 30 days before it
    const earlier = await series('/v1/spend/series?to=2026-11-19');
    expect([earlier.from, earlier.to, earlier.buckets.length]).toEqual(['2026-10-26', '2026-11-19', 24]);
    expect(await series('/v1/spend/series?from=2026-01-01&to=2026-02-01')).toEqual({ buckets: [], from: '2026-10-26', granularity: 'day', to: '2026-10-26' });
  });

  it("gives each caller their own user charges' series", async () => {
    expect(spent(await series('/v1/me/spend/series', tokens.alice))).toEqual({ '2026-11-18': '5.00', '2026-11-24': '1.50', '2026-11-25': '0.75' });
    expect(spent(await series('/v1/me/spend/series?from=2026-11-20', tokens.alice))).toEqual({ '2026-11-24': '1.50', '2026-11-25': '0.75' });
    expect((await get('/v1/me/spend/series?subject_id=bob', tokens.alice)).status).toBe(400);
  });

  it('refuses series parameters that are not dates, windows backwards, and granularities other than day', async () => {
    for (const [query, pattern] of [
      ['from=2026-11-01T00:00:00Z', /^from: .*not a date/],
      ['to=2026-13-01', /^to: .*not a date/],
      ['from=2026-11-20&to=2026-11-20', /^from: must be before to/],
      ['granularity=week', /^granularity: must be "day"/],
      ['scope=everyone', /^scope: must be one of/],
    ] as const) {
      const response = await get<{ error: string }>(`/v1/spend/series?${query}`);
      expect(response.status, query).toBe(400);
      expect(response.body.error).toMatch(pattern);
    }
  });

  it('exports spend per day and user by default, sorted by bucket, amount descending, then keys in byte order', async () => {
    const { text, from, to } = await exported('');
    expect(from).toBe('2026-10-27T00:00:00.000Z');
    expect(to).toBe('2026-11-26T00:00:00.000Z');
    expect(text).toBe(
      csv(
        'bucket_start,group_key,charged_usd',
        '2026-10-31,bob,5.00',
        '2026-11-01,bob,4.00',
        '2026-11-18,alice,5.00',
        '2026-11-24,Bob,1.50',
        '2026-11-24,alice,1.50',
        '2026-11-24,bob,1.50',
        '2026-11-24,"Zoë, ""the"" admin",0.0000015',
        '2026-11-25,alice,0.75',
      ),
    );
    expect((await get('/v1/spend/export', tokens.auditor)).status).toBe(200);
  });

  it('exports weeks from Monday, with one column per dimension in group_by order, and edge buckets holding only in-window charges', async () => {
    const { text, from, to } = await exported('?group_by=model,user&granularity=week&from=2026-11-18T12:00:00Z');
    expect([from, to]).toEqual(['2026-11-18T12:00:00.000Z', '2026-11-26T00:00:00.000Z']);
    expect(text).toBe(
      csv(
        'bucket_start,model,user,charged_usd',
        '2026-11-16,gpt-4o,alice,3.00',
        '2026-11-23,claude-sonnet-4-5,alice,1.50',
        '2026-11-23,gpt-4o,Bob,1.50',
        '2026-11-23,gpt-4o,bob,1.50',
        '2026-11-23,gpt-4o,alice,0.75',
        '2026-11-23,gemini-2.5-pro,"Zoë, ""the"" admin",0.0000015',
      ),
    );
  });

  it('exports months from the 1st within the window clamped to the horizon and tomorrow', async () => {
    const { text, from, to } = await exported('?group_by=provider&granularity=month&from=2020-01-01&to=2030-01-01');
    expect([from, to]).toEqual(['2026-10-26T00:00:00.000Z', '2026-11-26T00:00:00.000Z']);
    expect(text).toBe(csv('bucket_start,group_key,charged_usd', '2026-10-01,openai,5.00', '2026-11-01,openai,12.75', '2026-11-01,anthropic,1.50', '2026-11-01,gemini,0.0000015'));
  });

  it('exports group charges by every dimension, and a header alone when nothing matches', async () => {
    const { text } = await exported(`?group_by=user,model,provider&scope=group&subject_id=${GROUP}`);
    expect(text).toBe(csv('bucket_start,user,model,provider,charged_usd', '2026-11-24,alice,claude-sonnet-4-5,anthropic,1.50'));
    expect((await exported('?model=no-such-model&group_by=provider,user')).text).toBe(csv('bucket_start,provider,user,charged_usd'));
  });

  it('answers bad export parameters with a JSON 400 before any CSV', async () => {
    for (const [query, pattern] of [
      ['group_by=user,team', /^group_by: "team" is not one of user, model, provider/],
      ['group_by=user,model,user', /^group_by: "user" is given twice/],
      ['group_by=', /^group_by: "" is not one of/],
      ['granularity=year', /^granularity: must be one of "day", "week", "month"/],
      ['from=last-week', /^from: .*RFC 3339/],
      ['from=2026-11-20&to=2026-11-19T23:00:00Z', /^from: must be before to/],
      ['format=json', /^format: unknown field/],
    ] as const) {
      const response = await get<{ error: string }>(`/v1/spend/export?${query}`);
      expect(response.status, query).toBe(400);
      expect(response.headers['content-type']).toMatch(/^application\/json/);
      expect(response.body.error).toMatch(pattern);
    }
    expect((await get('/v1/spend/export', tokens.alice)).status).toBe(403);
  });

  it('streams a large export through several cursor batches, in order', async () => {
    // 2,500 users on one day, amounts falling with the number: more rows than one batch holds
    await sql`
      insert into charges (id, event_id, event_time, scope, subject_id, auth_subject, charged_usd, model, provider, interaction_id, period_start, period_end, pricing_catalog_id)
      select gen_random_uuid(), gen_random_uuid(), timestamptz '2026-11-20T10:00:00Z', 'user', 'u' || lpad(n::text, 4, '0'), 'u' || lpad(n::text, 4, '0'),
        (10000 - n)::numeric / 100, 'bulk-model', 'openai', 'i', timestamptz '2026-11-20T00:00:00Z', timestamptz '2026-11-21T00:00:00Z', gen_random_uuid()
      from generate_series(1, 2500) as n`.execute(platform.database.db);
    const { text } = await exported('?model=bulk-model');
    const lines = text.split('\r\n');
    expect(lines).toHaveLength(2502);
    expect(lines[1]).toBe('2026-11-20,u0001,99.99');
    expect(lines[2500]).toBe('2026-11-20,u2500,75.00');
    expect(lines.at(-1)).toBe('');
  });

  it('is not there when the experiment is off', async () => {
    const off = await createTestPlatform({ target });
    try {
      const response = await off.call<{ error: string }>('GET', '/v1/spend/export');
      expect(response.status).toBe(404);
      expect(response.body.error).toMatch(/experiments\.spendExport/);
    } finally {
      await off.dispose();
    }
  });
});
