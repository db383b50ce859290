import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabaseTargets } from '../../src/core/db/database-testing.js';
import { GENESIS_HASH, recordHash } from '../../src/platform/tool-usage/chain.js';
import type { ToolCallUsage } from '../../src/platform/tool-usage/recorder.js';
import type { ActivityPage, ConnectorUsage, ExportPage, Summary, Timeseries, TopConnectors, TopTools, UserUsage } from '../../src/platform/tool-usage/schemas.js';
import { manualClock } from '../helpers/clock.js';
import type { OidcProvider } from '../helpers/oidc-provider.js';
import { createTestPlatform, oauthWith, startTestProvider, type TestPlatform } from './helpers.js';
import { signingKeys, usageOf } from './tool-usage-testing.js';

const NOW = new Date('2026-11-26T00:00:00.000Z');
const CONNECTORS = [
  { id: '00000000-0000-4000-8000-00000000c001', name: 'github' },
  { id: '00000000-0000-4000-8000-00000000c002', name: 'jira' },
  { id: '00000000-0000-4000-8000-00000000c003', name: 'slack' },
];
const GROUPS = [
  { id: '00000000-0000-4000-8000-00000000a001', name: 'engineering' },
  { id: '00000000-0000-4000-8000-00000000a002', name: 'platform' },
  { id: '00000000-0000-4000-8000-00000000a003', name: 'support' },
];
const USERS = ['u1', 'u2', 'u3', 'u4', 'u5'].map((name, index) => `00000000-0000-4000-8000-0000000000${(index + 1).toString(16).padStart(2, '0')}`);

/** A deterministic spread of calls over eight days before NOW, with ragged seconds and milliseconds. */
function spread(count: number): ToolCallUsage[] {
  let seed = 7;
  const next = (modulo: number) => {
    seed = (seed * 48_271) % 2_147_483_647;
    return seed % modulo;
  };
  const begin = NOW.getTime() - 8 * 86_400_000;
  return Array.from({ length: count }, () => {
    const connector = CONNECTORS[next(3)];
    if (!connector) throw new Error('no connector');
    return usageOf({
      occurred_at: new Date(begin + next(8 * 86_400_000)).toISOString(),
      connector_id: connector.id,
      connector_name: connector.name,
      tool_name: ['search', 'create_issue', 'read'][next(3)],
      decision: next(4) === 0 ? 'denied' : 'allowed',
      environment: next(3) === 0 ? 'staging' : 'production',
      user_id: USERS[next(USERS.length)],
      groups: GROUPS.filter(() => next(2) === 0),
    });
  });
}

describe.each(testDatabaseTargets().map((target) => [target.name, target] as const))('tool-call usage (%s)', (_name, target) => {
  let provider: OidcProvider;
  let platform: TestPlatform;
  let admin: string;
  let auditor: string;
  let alice: string;
  let bob: string;
  const clock = manualClock(NOW);
  const records = spread(300);

  beforeAll(async () => {
    provider = await startTestProvider();
    const keys = await signingKeys('k1');
    platform = await createTestPlatform({
      target,
      clock,
      config: {
        auth: oauthWith(provider),
        signing: keys.config,
        toolUsage: { checkpointEvery: 50, checkpointInterval: '60s' },
        connectorGateway: { gateways: [{ id: 'default', name: 'Default' }, { id: 'other', name: 'Other' }] },
      },
    });
    [admin, auditor, alice, bob] = await Promise.all([
      provider.mint({ sub: 'admin', claims: { roles: ['connectorAdmin'] } }),
      provider.mint({ sub: 'auditor', claims: { roles: ['auditor'] } }),
      provider.mint({ sub: 'alice', claims: { preferred_username: 'alice' } }),
      provider.mint({ sub: 'bob', claims: { preferred_username: 'bob' } }),
    ]);
    // many calls at once: they are group-committed, in one chain without gaps; half of them are folded into the
    // roll-ups before the other half is written, so that the reads count from both
    await Promise.all(records.slice(0, 150).map((usage) => platform.features.toolUsage.record(usage)));
    await platform.features.toolUsage.folds.runOnce();
    await Promise.all(records.slice(150).map((usage) => platform.features.toolUsage.record(usage)));
  });
  afterAll(async () => {
    await platform.dispose();
    await provider.close();
  });

  const get = <T>(url: string, token = admin) => platform.call<T>('GET', url, { token });
  const inWindow = (from: string | undefined, to: string | undefined, extra: (usage: ToolCallUsage) => boolean = () => true) =>
    records.filter((usage) => (from === undefined || usage.occurred_at >= from) && (to === undefined || usage.occurred_at < to) && extra(usage));

  it('chains every record from 1 without gaps, each hash over the previous one, with a checkpoint every 50th', async () => {
    const pages: ExportPage[] = [];
    let cursor: string | undefined;
    do {
      const { status, body } = await get<ExportPage>(`/v1/tool-usage/export?gateway_id=default&limit=120${cursor ? `&cursor=${cursor}` : ''}`);
      expect(status).toBe(200);
      pages.push(body);
      cursor = body.next_cursor;
    } while (cursor);
    const exported = pages.flatMap((page) => page.records);
    expect(exported.map((record) => record.sequence)).toEqual(Array.from({ length: 300 }, (_, index) => index + 1));
    let previous = GENESIS_HASH;
    for (const record of exported) {
      expect(record.prev_hash).toBe(previous);
      expect(record.record_hash).toBe(recordHash('default', record.sequence, record.prev_hash, record.usage));
      previous = record.record_hash;
    }
    expect(exported.map((record) => record.usage.call_id).sort()).toEqual(records.map((usage) => usage.call_id).sort());
    expect(pages.map((page) => page.checkpoints.map((checkpoint) => checkpoint.sequence))).toEqual([[50, 100], [150, 200], [250, 300]]);
    const checkpoint = pages[0]?.checkpoints[0];
    expect(checkpoint).toMatchObject({ chain_id: 'default', hash_alg: 'SHA-256', sig_alg: 'ES256', key_id: 'k1', chain_hash: exported[49]?.record_hash });
    expect(checkpoint?.signature).toMatch(/^[\w-]+\.\.[\w-]+$/);
  });

  it('counts exactly in the summary, over windows cut at any millisecond', async () => {
    const windows: [string | undefined, string | undefined][] = [
      [undefined, undefined],
      ['2026-11-19T07:13:42.517Z', '2026-11-24T18:01:09.003Z'],
      ['2026-11-20T00:00:00.000Z', '2026-11-21T00:00:00.000Z'],
      ['2026-11-22T10:10:10.010Z', '2026-11-22T13:59:59.999Z'],
      ['2026-11-22T10:10:10.010Z', '2026-11-22T10:10:50.000Z'],
    ];
    for (const [start, end] of windows) {
      const query = `gateway_id=default${start ? `&start=${start}` : ''}${end ? `&end=${end}` : ''}`;
      const expected = inWindow(start, end);
      const { body } = await get<Summary>(`/v1/tool-usage/summary?${query}`);
      expect(body).toEqual({ active_user_count: new Set(expected.map((usage) => usage.user_id)).size, tool_call_count: expected.length });
      const staging = await get<Summary>(`/v1/tool-usage/summary?${query}&environment=staging`);
      expect(staging.body.tool_call_count).toBe(inWindow(start, end, (usage) => usage.environment === 'staging').length);
    }
  });

  it('serves zero-filled, aligned buckets of the width the window calls for, broken down by each dimension', async () => {
    const start = '2026-11-21T05:07:11.250Z';
    const end = '2026-11-23T02:00:00.000Z';
    const { body } = await get<Timeseries>(`/v1/tool-usage/timeseries?gateway_id=default&start=${start}&end=${end}&dimension=tool`);
    expect(body.bucket_width_seconds).toBe(900);
    expect(body.dimension).toBe('tool');
    expect(body.buckets[0]?.bucket_start).toBe('2026-11-21T05:00:00.000Z');
    expect(body.buckets.at(-1)?.bucket_start).toBe('2026-11-23T01:45:00.000Z');
    expect(body.buckets).toHaveLength((Date.parse('2026-11-23T02:00:00Z') - Date.parse('2026-11-21T05:00:00Z')) / 900_000);
    const expected = inWindow(start, end);
    for (const bucket of body.buckets) {
      const at = Date.parse(bucket.bucket_start);
      const inside = expected.filter((usage) => Date.parse(usage.occurred_at) >= at && Date.parse(usage.occurred_at) < at + 900_000);
      expect(bucket.tool_call_count).toBe(inside.length);
      const keys = new Map<string, number>();
      for (const usage of inside) keys.set(`${usage.connector_id}/${usage.tool_name}`, (keys.get(`${usage.connector_id}/${usage.tool_name}`) ?? 0) + 1);
      expect(Object.fromEntries((bucket.breakdown ?? []).map((entry) => [entry.key, entry.tool_call_count]))).toEqual(Object.fromEntries(keys));
    }

    for (const dimension of ['environment', 'decision', 'connector'] as const) {
      const series = await get<Timeseries>(`/v1/tool-usage/timeseries?gateway_id=default&dimension=${dimension}`);
      expect(series.body.bucket_width_seconds).toBe(3_600);
      const field = { environment: 'environment', decision: 'decision', connector: 'connector_id' } as const;
      const totals = new Map<string, number>();
      for (const bucket of series.body.buckets) for (const entry of bucket.breakdown ?? []) totals.set(entry.key, (totals.get(entry.key) ?? 0) + entry.tool_call_count);
      const wanted = new Map<string, number>();
      for (const usage of records) wanted.set(usage[field[dimension]], (wanted.get(usage[field[dimension]]) ?? 0) + 1);
      expect(Object.fromEntries(totals)).toEqual(Object.fromEntries(wanted));
    }

    const plain = await get<Timeseries>(`/v1/tool-usage/timeseries?gateway_id=default&start=2026-11-25T21:00:00Z&end=2026-11-26T00:00:00Z`);
    expect(plain.body.bucket_width_seconds).toBe(60);
    expect(plain.body.buckets).toHaveLength(180);
    expect('dimension' in plain.body).toBe(false);
    expect(plain.body.buckets.every((bucket) => !('breakdown' in bucket))).toBe(true);
    expect(plain.body.buckets.reduce((sum, bucket) => sum + bucket.tool_call_count, 0)).toBe(inWindow('2026-11-25T21:00:00Z', '2026-11-26T00:00:00Z').length);
    const widths = [
      ['2026-11-01T00:00:00Z', '2026-11-01T03:00:00.001Z', 900],
      ['2026-11-01T00:00:00Z', '2026-11-09T00:00:00Z', 3_600],
      ['2026-11-01T00:00:00Z', '2026-11-09T00:00:00.001Z', 86_400],
      ['2026-01-01T00:00:00Z', '2026-07-20T00:00:00Z', 86_400],
      ['2026-01-01T00:00:00Z', '2026-07-20T00:00:00.001Z', 604_800],
    ] as const;
    for (const [from, to, width] of widths) {
      const { body: series } = await get<Timeseries>(`/v1/tool-usage/timeseries?gateway_id=default&start=${from}&end=${to}`);
      expect(series.bucket_width_seconds).toBe(width);
    }
    const weekly = await get<Timeseries>(`/v1/tool-usage/timeseries?gateway_id=default&start=2026-01-01T00:00:00Z&end=2026-07-20T00:00:00.001Z`);
    expect(weekly.body.buckets[0]?.bucket_start).toBe('2025-12-29T00:00:00.000Z');
  });

  it('ranks connectors and tools by calls, then name, and clamps their limits', async () => {
    const connectors = await get<TopConnectors>('/v1/tool-usage/top-connectors?gateway_id=default');
    const perConnector = CONNECTORS.map((connector) => ({ connector_id: connector.id, connector_name: connector.name, tool_call_count: records.filter((usage) => usage.connector_id === connector.id).length }));
    expect(connectors.body.connectors).toEqual(perConnector.sort((left, right) => right.tool_call_count - left.tool_call_count || left.connector_name.localeCompare(right.connector_name)));
    const tools = await get<TopTools>('/v1/tool-usage/top-tools?gateway_id=default&limit=1000');
    expect(tools.body.tools).toHaveLength(9);
    expect(tools.body.tools.reduce((sum, tool) => sum + tool.tool_call_count, 0)).toBe(300);
    const counts = tools.body.tools.map((tool) => tool.tool_call_count);
    expect(counts).toEqual([...counts].sort((left, right) => right - left));
    const top = await get<TopTools>('/v1/tool-usage/top-tools?gateway_id=default&limit=2');
    expect(top.body.tools).toEqual(tools.body.tools.slice(0, 2));
    expect((await get<TopTools>('/v1/tool-usage/top-tools?gateway_id=default')).body.tools).toHaveLength(9);
  });

  it("gives a connector's calls per group of its callers, a record counting in each of its groups", async () => {
    const [connector] = CONNECTORS;
    const start = '2026-11-20T03:30:00.000Z';
    const end = '2026-11-24T03:30:00.000Z';
    const { status, body } = await get<ConnectorUsage>(`/v1/tool-usage/connectors/${connector?.id}?gateway_id=default&start=${start}&end=${end}`);
    expect(status).toBe(200);
    const mine = inWindow(start, end, (usage) => usage.connector_id === connector?.id);
    expect(body.connector_name).toBe('github');
    expect(body.tool_call_count).toBe(mine.length);
    for (const series of body.group_series) {
      expect(series.points).toHaveLength(97);
      expect(series.points.reduce((sum, point) => sum + point.tool_call_count, 0)).toBe(mine.filter((usage) => usage.groups.some((group) => group.id === series.group.id)).length);
    }
    expect(body.group_series.map((series) => series.group.name)).toEqual(['engineering', 'platform', 'support']);
    const unknown = await get<ConnectorUsage>(`/v1/tool-usage/connectors/${randomUUID()}?gateway_id=default`);
    expect(unknown.body).toMatchObject({ connector_name: null, group_series: [], tool_call_count: 0 });
  });

  it('folds each record into the roll-ups once, the figures the same before and after', async () => {
    const [connector] = CONNECTORS;
    const window = 'start=2026-11-19T07:13:42.517Z&end=2026-11-24T18:01:09.003Z';
    const urls = [
      '/v1/tool-usage/summary?gateway_id=default',
      `/v1/tool-usage/timeseries?gateway_id=default&${window}&dimension=connector`,
      `/v1/tool-usage/top-tools?gateway_id=default&limit=1000&${window}`,
      `/v1/tool-usage/connectors/${connector?.id}?gateway_id=default&${window}`,
    ];
    const read = () => Promise.all(urls.map(async (url) => (await get<unknown>(url)).body));
    const before = await read();
    await platform.features.toolUsage.folds.runOnce();
    expect(await platform.features.toolUsage.folds.runOnce()).toBe(0);
    expect(await read()).toEqual(before);
    expect(before[0]).toEqual({ active_user_count: USERS.length, tool_call_count: 300 });
  });

  it("gives a user's calls per connector and tool; an unknown user has none", async () => {
    const [user] = USERS;
    const start = '2026-11-18T00:00:00Z';
    const end = '2026-11-26T00:00:00Z';
    const { body } = await get<UserUsage>(`/v1/tool-usage/users/${user}?gateway_id=default&start=${start}&end=${end}`);
    const theirs = records.filter((usage) => usage.user_id === user);
    expect(body.tool_call_count).toBe(theirs.length);
    expect(body.series.reduce((sum, point) => sum + point.tool_call_count, 0)).toBe(theirs.length);
    expect(body.last_activity).toBe(theirs.map((usage) => usage.occurred_at).sort().at(-1));
    expect(body.connectors.flatMap((connector) => connector.tools).reduce((sum, tool) => sum + tool.tool_call_count, 0)).toBe(theirs.length);
    const nobody = await get<UserUsage>(`/v1/tool-usage/users/${randomUUID()}?gateway_id=default&start=${start}&end=${end}`);
    expect(nobody.body).toMatchObject({ connectors: [], last_activity: null, tool_call_count: 0 });
  });

  it('shows me my own calls only, newest first, paged both ways', async () => {
    const users = await get<{ items: { id: string; user_name: string }[] }>('/v1/users?limit=200', admin);
    await platform.call('GET', '/v1/gateways', { token: alice });
    await platform.call('GET', '/v1/gateways', { token: bob });
    const listed = await get<{ items: { id: string; user_name: string }[] }>('/v1/users?limit=200', admin);
    const aliceId = listed.body.items.find((user) => user.user_name === 'alice')?.id ?? users.body.items[0]?.id;
    const connector = CONNECTORS[1]?.id ?? '';
    const hers = Array.from({ length: 5 }, (_, index) => usageOf({ user_id: aliceId, connector_id: connector, occurred_at: `2026-11-25T10:00:0${index}.000Z`, outcome: index === 2 ? 'error' : 'ok' }));
    for (const usage of hers) await platform.features.toolUsage.record(usage);

    const first = await get<ActivityPage>(`/v1/me/tool-usage/calls?gateway_id=default&connector_id=${connector}&limit=2`, alice);
    expect(first.status).toBe(200);
    expect(first.body.records.map((usage) => usage.occurred_at)).toEqual(['2026-11-25T10:00:04.000Z', '2026-11-25T10:00:03.000Z']);
    expect(first.body.prev_cursor).toBeUndefined();
    const second = await get<ActivityPage>(`/v1/me/tool-usage/calls?gateway_id=default&connector_id=${connector}&limit=2&cursor=${first.body.next_cursor}`, alice);
    expect(second.body.records.map((usage) => usage.occurred_at)).toEqual(['2026-11-25T10:00:02.000Z', '2026-11-25T10:00:01.000Z']);
    const back = await get<ActivityPage>(`/v1/me/tool-usage/calls?gateway_id=default&connector_id=${connector}&limit=2&before=${second.body.prev_cursor}`, alice);
    expect(back.body.records).toEqual(first.body.records);
    const errors = await get<ActivityPage>(`/v1/me/tool-usage/calls?gateway_id=default&connector_id=${connector}&outcome=error`, alice);
    expect(errors.body.records.map((usage) => usage.call_id)).toEqual([hers[2]?.call_id]);

    const his = await get<ActivityPage>(`/v1/me/tool-usage/calls?gateway_id=default&connector_id=${connector}`, bob);
    expect(his.status).toBe(200);
    expect(his.body.records).toEqual([]);
  });

  it('keeps the analytics and the export to connectorAdmin and auditor', async () => {
    expect((await get('/v1/tool-usage/summary?gateway_id=default', auditor)).status).toBe(200);
    for (const path of ['summary', 'timeseries', 'top-tools', 'top-connectors', 'export', `connectors/${CONNECTORS[0]?.id}`]) {
      const { status, body } = await get<{ error: string }>(`/v1/tool-usage/${path}?gateway_id=default`, alice);
      expect([path, status, body.error]).toEqual([path, 403, expect.stringContaining('connectorAdmin or auditor')]);
    }
    expect((await platform.call('GET', '/v1/tool-usage/summary?gateway_id=default')).status).toBe(401);
  });

  it('answers 400 naming the parameter for every malformed query', async () => {
    const connector = CONNECTORS[0]?.id ?? '';
    const cases: [string, string, RegExp][] = [
      ['summary without gateway_id', '/v1/tool-usage/summary', /gateway_id/],
      ['an unknown gateway', '/v1/tool-usage/summary?gateway_id=nope', /gateway_id: no gateway "nope"/],
      ['start after end', '/v1/tool-usage/timeseries?gateway_id=default&start=2026-11-20T00:00:00Z&end=2026-11-19T00:00:00Z', /start: must be before end/],
      ['start equal to end', '/v1/tool-usage/summary?gateway_id=default&start=2026-11-20T00:00:00Z&end=2026-11-20T00:00:00Z', /start: must be before end/],
      ['a malformed start', '/v1/tool-usage/summary?gateway_id=default&start=yesterday', /start: "yesterday" is not an RFC 3339 timestamp/],
      ['a malformed end', '/v1/tool-usage/top-tools?gateway_id=default&end=2026-13-01', /end: /],
      ['a limit below 1', '/v1/tool-usage/top-tools?gateway_id=default&limit=0', /limit/],
      ['a limit not an integer', '/v1/tool-usage/export?gateway_id=default&limit=2.5', /limit/],
      ['an unknown dimension', '/v1/tool-usage/timeseries?gateway_id=default&dimension=user', /dimension/],
      ['a connector id that is no UUID', '/v1/tool-usage/connectors/github?gateway_id=default', /id: "github" is not a UUID/],
      ['user usage without start and end', `/v1/tool-usage/users/${USERS[0]}?gateway_id=default`, /start|end/],
      ['an altered export cursor', '/v1/tool-usage/export?gateway_id=default&cursor=bm9wZQ', /cursor: not a cursor/],
      ['an export cursor of another gateway', `/v1/tool-usage/export?gateway_id=other&cursor=${Buffer.from(JSON.stringify(['tool-usage.export', 'default', '5'])).toString('base64url')}`, /cursor: not a cursor/],
      ['an unknown parameter', '/v1/tool-usage/summary?gateway_id=default&user=1', /user/],
    ];
    for (const [what, url, message] of cases) {
      const { status, body } = await get<{ error: string }>(url);
      expect([what, status, body.error]).toEqual([what, 400, expect.stringMatching(message)]);
    }
    const activity = `/v1/me/tool-usage/calls?gateway_id=default&connector_id=${connector}`;
    const mine: [string, string, RegExp][] = [
      ['activity without connector_id', '/v1/me/tool-usage/calls?gateway_id=default', /connector_id/],
      ['cursor and before together', `${activity}&cursor=a&before=b`, /cursor and before/],
      ['an activity cursor from the export', `${activity}&cursor=${Buffer.from(JSON.stringify(['tool-usage.export', 'default', '5'])).toString('base64url')}`, /cursor: not a cursor of this list/],
      ['an unknown outcome', `${activity}&outcome=maybe`, /outcome/],
    ];
    for (const [what, url, message] of mine) {
      const { status, body } = await get<{ error: string }>(url, alice);
      expect([what, status, body.error]).toEqual([what, 400, expect.stringMatching(message)]);
    }
  });

  it('signs a head left unsigned for the interval, once', async () => {
    await platform.features.toolUsage.record(usageOf({ occurred_at: '2026-11-25T23:00:00.000Z' }));
    expect(await platform.features.toolUsage.checkpoints?.runOnce()).toBe(0);
    clock.advance(60_000);
    expect(await platform.features.toolUsage.checkpoints?.runOnce()).toBe(1);
    expect(await platform.features.toolUsage.checkpoints?.runOnce()).toBe(0);
    const { body } = await get<ExportPage>('/v1/tool-usage/export?gateway_id=default&limit=500');
    const head = body.records.at(-1);
    expect(body.checkpoints.at(-1)).toMatchObject({ sequence: head?.sequence, chain_hash: head?.record_hash, signed_at: new Date(clock.now()).toISOString() });
  });
});

describe('tool-call usage without a signing block', () => {
  it('writes the records and signs no checkpoint', async () => {
    const clock = manualClock(NOW);
    const platform = await createTestPlatform({ clock, config: { toolUsage: { checkpointEvery: 2 } } });
    try {
      for (let index = 0; index < 4; index++) await platform.features.toolUsage.record(usageOf());
      expect(platform.features.toolUsage.checkpoints).toBeUndefined();
      const { body } = await platform.call<ExportPage>('GET', '/v1/tool-usage/export?gateway_id=default');
      expect(body.records.map((record) => record.sequence)).toEqual([1, 2, 3, 4]);
      expect(body.checkpoints).toEqual([]);
    } finally {
      await platform.dispose();
    }
  });
});
