import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabaseTargets } from '../../src/core/db/database-testing.js';
import type { BudgetLedger } from '../../src/platform/budgets/ledger.js';
import { dayOf, monthOf } from '../../src/platform/budgets/periods.js';
import type { Breakdown, BudgetCell, CellList, OwnSummary, Slice } from '../../src/platform/budgets/read-schemas.js';
import { Money } from '../../src/platform/money.js';
import { manualClock } from '../helpers/clock.js';
import { nowSeconds, type OidcProvider } from '../helpers/oidc-provider.js';
import { admission, usageEvent } from './budgets-testing.js';
import { createTestPlatform, oauthWith, startTestProvider, type TestPlatform } from './helpers.js';

type Error = { error: string };

describe.each(testDatabaseTargets().map((target) => [target.name, target] as const))('budget reads (%s)', (_name, target) => {
  let provider: OidcProvider;
  let platform: TestPlatform;
  let ledger: BudgetLedger;
  const clock = manualClock(new Date(Math.floor(Date.now() / 1000) * 1000));
  const now = clock.now();
  const day = dayOf(now);
  const month = monthOf(now);
  const tokens = { billing: '', auditor: '', alice: '', bob: '', directoryAdmin: '' };
  const groups = { eng: '', ops: '', lab: '' };

  const get = <T>(url: string, token = tokens.billing) => platform.call<T>('GET', url, { token });
  const spend = async (subject: string, groupIds: string[], model: string, provider: string, cost: string) => {
    const request = admission(subject, now, cost, groupIds);
    const decision = await ledger.admit(request);
    if (!decision.admitted) throw new Error(decision.message);
    await ledger.settle({ hold: decision.hold, event: usageEvent(request.eventId, now, subject, { model, provider }), cost: { usd: new Money(cost), pricingCatalogId: '30000000-0000-4000-8000-000000000003' } });
  };
  const userIdOf = async (subject: string) =>
    (await platform.database.db.selectFrom('user_identities').select('user_id').where('external_id', '=', subject).executeTakeFirstOrThrow()).user_id;
  const addMember = async (groupId: string, kind: 'users' | 'subgroups', id: string) => {
    const response = await platform.call('POST', `/v1/groups/${groupId}/${kind}/${id}`, { token: tokens.directoryAdmin });
    expect(response.status, response.text).toBe(200);
  };

  beforeAll(async () => {
    provider = await startTestProvider();
    platform = await createTestPlatform({ target, clock, config: { auth: oauthWith(provider) }, extraRoutes: (_context, features) => (ledger = features.budgets.ledger) });
    // one test moves the clock to the next day: tokens outlive that
    const exp = nowSeconds() + 2 * 24 * 3600;
    tokens.billing = await provider.mint({ sub: 'bill', claims: { roles: ['billingAdmin'] }, exp });
    tokens.auditor = await provider.mint({ sub: 'audrey', claims: { roles: ['auditor'] }, exp });
    tokens.directoryAdmin = await provider.mint({ sub: 'dora', claims: { roles: ['directoryAdmin'] }, exp });
    tokens.alice = await provider.mint({ sub: 'alice', exp });
    tokens.bob = await provider.mint({ sub: 'bob', exp });
    for (const name of ['eng', 'ops', 'lab'] as const) {
      const response = await platform.call<{ id: string }>('POST', '/v1/groups', { token: tokens.directoryAdmin, body: { name } });
      groups[name] = response.body.id;
    }
    // alice and bob come into the directory with their first request; alice is in eng through lab
    for (const token of [tokens.alice, tokens.bob]) expect((await get('/v1/me/budgets', token)).status).toBe(200);
    await addMember(groups.lab, 'users', await userIdOf('alice'));
    await addMember(groups.eng, 'subgroups', groups.lab);
    await addMember(groups.eng, 'users', await userIdOf('bob'));
    const budgets = await platform.call('PUT', '/v1/budgets', {
      token: tokens.billing,
      body: {
        default_user: { day_limit_usd: '1', month_limit_usd: '20' },
        users: [{ subject_id: 'carol', month_limit_usd: '5' }],
        groups: [
          { subject_id: groups.eng, day_limit_usd: '10', month_limit_usd: '100' },
          { subject_id: groups.ops, month_limit_usd: '50' },
        ],
      },
    });
    expect(budgets.status, budgets.text).toBe(200);
    await spend('alice', [groups.eng, groups.lab], 'gpt-4o', 'openai', '0.30');
    await spend('alice', [groups.eng, groups.lab], 'claude-sonnet-4-5', 'anthropic', '0.20');
    await spend('bob', [groups.eng], 'gpt-4o', 'openai', '0.50');
    await spend('dave', [], 'gpt-4o', 'openai', '0.10');
    // erin's request is still in flight: a reservation, no charge
    expect((await ledger.admit(admission('erin', now, '0.40'))).admitted).toBe(true);
    // alice joins ops after her requests: a budgeted group she is in, without charges
    await addMember(groups.ops, 'users', await userIdOf('alice'));
  });
  afterAll(async () => {
    await platform.dispose();
    await provider.close();
  });

  const cellOf = (scope: 'user' | 'group', subject: string, period: 'day' | 'month', fields: Partial<BudgetCell>): BudgetCell => {
    const key = period === 'day' ? day : month;
    return {
      limit_usd: '',
      on_default: false,
      ordinal: key.ordinal,
      period,
      period_end: key.end.toISOString(),
      period_start: key.start.toISOString(),
      remaining_usd: '',
      scope,
      subject_id: subject,
      used_usd: '0.00',
      ...fields,
    };
  };

  it('lists the cells of the current periods: budgeted groups, users with own limits, users on the default with activity', async () => {
    const response = await get<CellList>('/v1/budgets/cells');
    expect(response.status, response.text).toBe(200);
    const [first, second] = [groups.eng, groups.ops].sort();
    const groupCells = (id: string) =>
      id === groups.eng
        ? [cellOf('group', id, 'day', { limit_usd: '10.00', used_usd: '1.00', remaining_usd: '9.00' }), cellOf('group', id, 'month', { limit_usd: '100.00', used_usd: '1.00', remaining_usd: '99.00' })]
        : [cellOf('group', id, 'month', { limit_usd: '50.00', remaining_usd: '50.00' })];
    expect(response.body).toEqual({
      cells: [
        ...groupCells(first ?? ''),
        ...groupCells(second ?? ''),
        cellOf('user', 'alice', 'day', { limit_usd: '1.00', on_default: true, used_usd: '0.50', remaining_usd: '0.50' }),
        cellOf('user', 'alice', 'month', { limit_usd: '20.00', on_default: true, used_usd: '0.50', remaining_usd: '19.50' }),
        cellOf('user', 'bob', 'day', { limit_usd: '1.00', on_default: true, used_usd: '0.50', remaining_usd: '0.50' }),
        cellOf('user', 'bob', 'month', { limit_usd: '20.00', on_default: true, used_usd: '0.50', remaining_usd: '19.50' }),
        cellOf('user', 'carol', 'day', { limit_usd: '1.00', on_default: true, remaining_usd: '1.00' }),
        cellOf('user', 'carol', 'month', { limit_usd: '5.00', remaining_usd: '5.00' }),
        cellOf('user', 'dave', 'day', { limit_usd: '1.00', on_default: true, used_usd: '0.10', remaining_usd: '0.90' }),
        cellOf('user', 'dave', 'month', { limit_usd: '20.00', on_default: true, used_usd: '0.10', remaining_usd: '19.90' }),
        cellOf('user', 'erin', 'day', { limit_usd: '1.00', on_default: true, remaining_usd: '0.60' }),
        cellOf('user', 'erin', 'month', { limit_usd: '20.00', on_default: true, remaining_usd: '19.60' }),
      ],
    });
  });

  it('filters by scope and case-sensitive subject prefix, and pages with cursors', async () => {
    expect((await get<CellList>('/v1/budgets/cells?scope=user&subject=a')).body.cells.map((cell) => `${cell.subject_id}/${cell.period}`)).toEqual(['alice/day', 'alice/month']);
    expect((await get<CellList>('/v1/budgets/cells?subject=A')).body).toEqual({ cells: [] });
    expect((await get<CellList>('/v1/budgets/cells?scope=group')).body.cells).toHaveLength(3);
    const all = (await get<CellList>('/v1/budgets/cells')).body.cells;
    const paged: BudgetCell[] = [];
    let url = '/v1/budgets/cells?limit=5';
    for (;;) {
      const page = await get<CellList>(url);
      expect(page.status).toBe(200);
      paged.push(...page.body.cells);
      if (page.body.next_cursor === undefined) break;
      url = `/v1/budgets/cells?limit=5&cursor=${page.body.next_cursor}`;
    }
    expect(paged).toEqual(all);
    expect((await get<CellList>('/v1/budgets/cells?limit=1000')).body.cells).toEqual(all);
  });

  it('reads the periods containing `at`', async () => {
    const before = new Date(month.start.getTime() - 1).toISOString();
    const response = await get<CellList>(`/v1/budgets/cells?scope=user&at=${before}`);
    expect(response.body.cells.map((cell) => [cell.subject_id, cell.period, cell.ordinal, cell.used_usd])).toEqual([
      ['carol', 'day', day.ordinal - (now.getUTCDate() - 1) - 1, '0.00'],
      ['carol', 'month', month.ordinal - 1, '0.00'],
    ]);
  });

  it('refuses bad cell list parameters', async () => {
    expect((await get<Error>('/v1/budgets/cells?at=yesterday')).body.error).toMatch(/^at: "yesterday" is not an RFC 3339 time/);
    expect((await get<Error>('/v1/budgets/cells?cursor=bm9wZQ')).status).toBe(400);
    expect((await get<Error>('/v1/budgets/cells?limit=0')).status).toBe(400);
    expect((await get<Error>('/v1/budgets/cells?scope=team')).status).toBe(400);
  });

  it('breaks a cell down by model, provider and user, each summing to its total', async () => {
    const response = await get<Breakdown>(`/v1/budgets/breakdown?scope=group&subject_id=${groups.eng}`);
    expect(response.status, response.text).toBe(200);
    expect(response.body).toEqual({
      by_model: [
        { used_usd: '0.80', value: 'gpt-4o' },
        { used_usd: '0.20', value: 'claude-sonnet-4-5' },
      ],
      by_provider: [
        { used_usd: '0.80', value: 'openai' },
        { used_usd: '0.20', value: 'anthropic' },
      ],
      by_user: [
        { used_usd: '0.50', value: 'alice' },
        { used_usd: '0.50', value: 'bob' },
      ],
      period: 'month',
      period_end: month.end.toISOString(),
      period_start: month.start.toISOString(),
      scope: 'group',
      subject_id: groups.eng,
      total_used_usd: '1.00',
    });
    const user = await get<Breakdown>('/v1/budgets/breakdown?scope=user&subject_id=alice&period=day');
    expect(user.body).toMatchObject({ by_user: [{ used_usd: '0.50', value: 'alice' }], period: 'day', period_start: day.start.toISOString(), total_used_usd: '0.50' });
    // a budgeted group without spend: an empty breakdown; no budget and no spend: no cell
    expect((await get<Breakdown>(`/v1/budgets/breakdown?scope=group&subject_id=${groups.ops}`)).body).toMatchObject({ by_model: [], by_user: [], total_used_usd: '0.00' });
    expect((await get<Error>(`/v1/budgets/breakdown?scope=group&subject_id=${groups.ops}&period=day`)).status).toBe(404);
    expect((await get<Error>(`/v1/budgets/breakdown?scope=group&subject_id=${groups.lab}`)).status).toBe(404);
    expect((await get<Error>('/v1/budgets/breakdown?scope=group')).body.error).toBe('subject_id: is required');
    expect((await get<Error>('/v1/budgets/breakdown?scope=user&subject_id=alice&period=week')).status).toBe(400);
  });

  it('slices a group by user or model', async () => {
    const byUser = await get<Slice>(`/v1/budgets/groups/${groups.eng}/slice?dimension=user&period=day`);
    expect(byUser.body).toEqual({
      dimension: 'user',
      entries: [
        { used_usd: '0.50', value: 'alice' },
        { used_usd: '0.50', value: 'bob' },
      ],
      period: 'day',
      period_end: day.end.toISOString(),
      period_start: day.start.toISOString(),
      scope: 'group',
      subject_id: groups.eng,
      total_used_usd: '1.00',
    });
    expect((await get<Slice>(`/v1/budgets/groups/${groups.eng}/slice?dimension=model`)).body.entries.map((entry) => entry.value)).toEqual(['gpt-4o', 'claude-sonnet-4-5']);
    expect((await get<Error>(`/v1/budgets/groups/${groups.lab}/slice?dimension=model`)).status).toBe(404);
    expect((await get<Error>(`/v1/budgets/groups/${groups.eng}/slice`)).body.error).toBe('dimension: is required');
    expect((await get<Error>(`/v1/budgets/groups/${groups.eng}/slice?dimension=group`)).status).toBe(400);
  });

  it("slices a user by model, or by the budgeted groups the user is in or was charged to", async () => {
    expect((await get<Slice>('/v1/budgets/users/alice/slice?dimension=model')).body).toMatchObject({
      dimension: 'model',
      entries: [
        { used_usd: '0.30', value: 'gpt-4o' },
        { used_usd: '0.20', value: 'claude-sonnet-4-5' },
      ],
      period: 'month',
      total_used_usd: '0.50',
    });
    expect((await get<Slice>('/v1/budgets/users/alice/slice?dimension=group')).body).toEqual({
      dimension: 'group',
      entries: [
        { used_usd: '0.50', value: groups.eng },
        { used_usd: '0.00', value: groups.ops },
      ],
      period: null,
      period_end: null,
      period_start: null,
      scope: 'user',
      subject_id: 'alice',
      total_used_usd: '0.50',
    });
    // dave: no directory user, but charges; carol: neither
    expect((await get<Slice>('/v1/budgets/users/dave/slice?dimension=group')).body).toMatchObject({ entries: [], total_used_usd: '0.00' });
    expect((await get<Error>('/v1/budgets/users/carol/slice?dimension=group')).status).toBe(404);
    expect((await get<Error>('/v1/budgets/users/alice/slice?dimension=user')).status).toBe(400);
  });

  it("shows me my cells and my groups' team totals with only my own contribution", async () => {
    const alice = await get<OwnSummary>('/v1/me/budgets', tokens.alice);
    expect(alice.status, alice.text).toBe(200);
    const mine = (body: OwnSummary) => body.budgets.map((budget) => [budget.scope === 'user' ? budget.subject_id : Object.entries(groups).find(([, id]) => id === budget.subject_id)?.[0], budget.period, budget.used_usd, budget.my_contribution_usd]);
    // mine first, then the groups by id
    const engCells = [
      ['eng', 'day', '1.00', '0.50'],
      ['eng', 'month', '1.00', '0.50'],
    ];
    const opsCells = [['ops', 'month', '0.00', '0.00']];
    expect(mine(alice.body)).toEqual([
      ['alice', 'day', '0.50', '0.50'],
      ['alice', 'month', '0.50', '0.50'],
      ...(groups.eng < groups.ops ? [...engCells, ...opsCells] : [...opsCells, ...engCells]),
    ]);
    expect(alice.body.subject).toBe('alice');
    expect(alice.body.day).toEqual({ budgets: 2, limit_usd: '1.00', period_end: day.end.toISOString(), period_start: day.start.toISOString(), remaining_usd: '0.50', used_usd: '0.50' });
    expect(alice.body.month).toMatchObject({ budgets: 3, limit_usd: '20.00', remaining_usd: '19.50' });
    expect(alice.body.budgets.find((budget) => budget.subject_id === groups.eng && budget.period === 'day')).toMatchObject({ limit_usd: '10.00', on_default: false, remaining_usd: '9.00' });
    const bob = await get<OwnSummary>('/v1/me/budgets', tokens.bob);
    expect(mine(bob.body)).toEqual([
      ['bob', 'day', '0.50', '0.50'],
      ['bob', 'month', '0.50', '0.50'],
      ['eng', 'day', '1.00', '0.50'],
      ['eng', 'month', '1.00', '0.50'],
    ]);
  });

  it('leaves day and month null without a personal budget', async () => {
    const collection = await get<{ default_user: unknown }>('/v1/budgets');
    await platform.call('PUT', '/v1/budgets', { token: tokens.billing, body: { ...collection.body, default_user: { day_limit_usd: null, month_limit_usd: null } } });
    try {
      const alice = await get<OwnSummary>('/v1/me/budgets', tokens.alice);
      expect(alice.body).toMatchObject({ day: null, month: null, subject: 'alice' });
      expect(alice.body.budgets.every((budget) => budget.scope === 'group')).toBe(true);
    } finally {
      await platform.call('PUT', '/v1/budgets', { token: tokens.billing, body: collection.body });
    }
  });

  it('moves to the next day at midnight, the month carrying on unless it ends too', async () => {
    clock.set(day.end);
    try {
      const alice = await get<OwnSummary>('/v1/me/budgets', tokens.alice);
      const sameMonth = day.end < month.end;
      expect(alice.body.day).toMatchObject({ period_start: day.end.toISOString(), used_usd: '0.00', remaining_usd: '1.00' });
      expect(alice.body.month).toMatchObject({ used_usd: sameMonth ? '0.50' : '0.00' });
      expect(alice.body.budgets[0]).toMatchObject({ period: 'day', ordinal: day.ordinal + 1, my_contribution_usd: '0.00' });
      expect((await get<Error>('/v1/budgets/breakdown?scope=user&subject_id=dave&period=day')).body).toMatchObject({ by_model: [], total_used_usd: '0.00' });
    } finally {
      clock.set(now);
    }
  });

  it('lets billing administrators and auditors read cells, breakdowns and slices; everyone their own summary', async () => {
    for (const url of ['/v1/budgets/cells', `/v1/budgets/breakdown?scope=group&subject_id=${groups.eng}`, `/v1/budgets/groups/${groups.eng}/slice?dimension=user`, '/v1/budgets/users/alice/slice?dimension=model']) {
      expect((await get(url, tokens.auditor)).status, url).toBe(200);
      expect((await get(url, tokens.alice)).status, url).toBe(403);
      expect((await get(url, tokens.directoryAdmin)).status, url).toBe(403);
      expect((await platform.call('GET', url)).status, url).toBe(401);
    }
    expect((await platform.call('GET', '/v1/me/budgets')).status).toBe(401);
  });
});
