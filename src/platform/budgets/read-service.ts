import type { Kysely } from 'kysely';
import type { Clock } from '../../core/clock.js';
import { InvalidInputError, NotFoundError } from '../../core/errors.js';
import { decodeListCursor, encodeListCursor } from '../../core/http/cursor.js';
import type { PlatformDatabase } from '../db.js';
import type { Actor } from '../identity/actor.js';
import type { IdentityResolver } from '../identity/resolver.js';
import { formatMoney, Money, ZERO } from '../money.js';
import { cellId, cellOf, type CellKey } from './cells.js';
import type { HeldReservations } from './ledger.js';
import { applicableCells, limitOf, readLimits } from './limits.js';
import { dayOf, monthOf, periodOf, type PeriodKey } from './periods.js';
import type { Breakdown, BreakdownQuery, BudgetCell, CellList, CellsQuery, GroupSliceQuery, OwnSummary, Slice, UserSliceQuery } from './read-schemas.js';
import { budgetedGroups, cellSpend, cellsTotals, cellTotals, contributions, directoryGroupsOf, groupChargesOf, listCells, type CellRow } from './read-store.js';
import type { BudgetPeriod, BudgetScope } from './tables.js';

export interface BudgetReadService {
  listCells(actor: Actor, query: CellsQuery): Promise<CellList>;
  breakdown(actor: Actor, query: BreakdownQuery): Promise<Breakdown>;
  groupSlice(actor: Actor, groupId: string, query: GroupSliceQuery): Promise<Slice>;
  userSlice(actor: Actor, subjectId: string, query: UserSliceQuery): Promise<Slice>;
  /** The caller's own budgets: needs only a directory identity. */
  ownSummary(actor: Actor): Promise<OwnSummary>;
}

export interface BudgetReadServiceOptions {
  db: Kysely<PlatformDatabase>;
  clock: Clock;
  identity: IdentityResolver;
  /** `usage.retentionDays`: charges older than the horizon are never counted. */
  retentionDays: number;
  /** Reservations held outside the database (the in-memory ledger's), added to each cell's reserved. */
  held?: HeldReservations;
}

const DAY_MS = 86_400_000;
const DEFAULT_LIMIT = 50;
const MAX_LIMIT = 200;
const CELLS_LIST = 'budget-cells';
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/i;

function instant(field: string, text: string): Date {
  const date = new Date(text);
  if (!RFC3339.test(text) || Number.isNaN(date.getTime())) throw new InvalidInputError(`${field}: "${text}" is not an RFC 3339 time (example: 2026-11-25T16:42:39.123Z)`);
  return date;
}

const remaining = (limit: Money, used: Money, reserved: Money) => formatMoney(Money.max(ZERO, limit.minus(used).minus(reserved)));

function presentCell(row: CellRow, held: Money): BudgetCell {
  const limit = new Money(row.limit_usd);
  return {
    limit_usd: formatMoney(limit),
    on_default: row.on_default,
    ordinal: row.ordinal,
    period: row.period,
    period_end: row.period_end.toISOString(),
    period_start: row.period_start.toISOString(),
    remaining_usd: remaining(limit, new Money(row.used_usd), new Money(row.reserved_usd).plus(held)),
    scope: row.scope,
    subject_id: row.subject_id,
    used_usd: formatMoney(row.used_usd),
  };
}

const entries = (rows: readonly { value: string; used_usd: string }[]) => rows.map((row) => ({ used_usd: formatMoney(row.used_usd), value: row.value }));
const byAmount = (a: { value: string; used: Money }, b: { value: string; used: Money }) => b.used.comparedTo(a.used) || (a.value < b.value ? -1 : a.value > b.value ? 1 : 0);

export function createBudgetReadService(options: BudgetReadServiceOptions): BudgetReadService {
  const { db, clock, identity } = options;
  const heldOn = (key: CellKey) => options.held?.reservedOn(key) ?? ZERO;

  /** The current cell of a subject: 404 when it has neither a limit for the period nor any spend or reservation in it. */
  const currentCell = async (scope: BudgetScope, subjectId: string, period: BudgetPeriod) => {
    const key = periodOf(period, clock.now());
    const cell = cellOf(scope, subjectId, key);
    const view = await readLimits(db, scope === 'user' ? [subjectId] : [], scope === 'group' ? [subjectId] : []);
    const { limit } = limitOf(view, scope, subjectId, period);
    const totals = await cellTotals(db, cell);
    if (limit === null && !totals) throw new NotFoundError(`no ${period} budget cell for ${scope} "${subjectId}" in the period starting ${key.start.toISOString()}`);
    return { cell, key, used: totals?.used_usd ?? '0' };
  };
  const periodFields = (period: BudgetPeriod, key: PeriodKey) => ({ period, period_end: key.end.toISOString(), period_start: key.start.toISOString() });

  return {
    async listCells(_actor, query) {
      let position: [string, string, string] | undefined;
      let at = query.at === undefined ? clock.now() : instant('at', query.at);
      if (query.cursor !== undefined) {
        const [cursorAt = '', scope = '', subject = '', period = ''] = decodeListCursor(query.cursor, CELLS_LIST, 4);
        if (query.at === undefined) at = instant('cursor', cursorAt);
        position = [scope, subject, period];
      }
      const limit = Math.min(query.limit ?? DEFAULT_LIMIT, MAX_LIMIT);
      const rows = await listCells(db, { day: dayOf(at), month: monthOf(at), scope: query.scope, prefix: query.subject, after: position, limit, held: options.held?.heldUserCells() ?? [] });
      const page = rows.slice(0, limit);
      const last = page.at(-1);
      const next = rows.length > limit && last ? encodeListCursor(CELLS_LIST, [at.toISOString(), last.scope, last.subject_id, last.period]) : undefined;
      return { cells: page.map((row) => presentCell(row, heldOn(row))), ...(next !== undefined && { next_cursor: next }) };
    },

    async breakdown(_actor, query) {
      const period = query.period ?? 'month';
      const { cell, key, used } = await currentCell(query.scope, query.subject_id, period);
      const [byModel, byProvider, byUser] = await Promise.all([cellSpend(db, cell, 'model'), cellSpend(db, cell, 'provider'), cellSpend(db, cell, 'auth_subject')]);
      return {
        by_model: entries(byModel),
        by_provider: entries(byProvider),
        by_user: entries(byUser),
        ...periodFields(period, key),
        scope: query.scope,
        subject_id: query.subject_id,
        total_used_usd: formatMoney(used),
      };
    },

    async groupSlice(_actor, groupId, query) {
      const period = query.period ?? 'month';
      const { cell, key, used } = await currentCell('group', groupId, period);
      const rows = await cellSpend(db, cell, query.dimension === 'user' ? 'auth_subject' : 'model');
      return { dimension: query.dimension, entries: entries(rows), ...periodFields(period, key), scope: 'group', subject_id: groupId, total_used_usd: formatMoney(used) };
    },

    async userSlice(_actor, subjectId, query) {
      if (query.dimension === 'model') {
        const period = query.period ?? 'month';
        const { cell, key, used } = await currentCell('user', subjectId, period);
        return { dimension: 'model', entries: entries(await cellSpend(db, cell, 'model')), ...periodFields(period, key), scope: 'user', subject_id: subjectId, total_used_usd: formatMoney(used) };
      }
      const today = dayOf(clock.now()).start.getTime();
      const horizon = new Date(today - (options.retentionDays - 1) * DAY_MS);
      const [directory, charged] = await Promise.all([directoryGroupsOf(db, subjectId), groupChargesOf(db, subjectId, horizon)]);
      if (!directory.found && !charged.any) throw new NotFoundError(`no directory user has the OIDC subject "${subjectId}", and it has no charges within retention`);
      const spent = new Map(charged.groups.map((row) => [row.value, new Money(row.used_usd)]));
      const groups = new Set([...(await budgetedGroups(db, directory.groupIds)), ...spent.keys()]);
      const rows = [...groups].map((value) => ({ value, used: spent.get(value) ?? ZERO })).sort(byAmount);
      const total = rows.reduce((sum, row) => sum.plus(row.used), ZERO);
      return {
        dimension: 'group',
        entries: rows.map((row) => ({ used_usd: formatMoney(row.used), value: row.value })),
        period: null,
        period_end: null,
        period_start: null,
        scope: 'user',
        subject_id: subjectId,
        total_used_usd: formatMoney(total),
      };
    },

    async ownSummary(actor) {
      const { groupIds } = await identity.resolve(actor);
      const subject = actor.subject;
      const now = clock.now();
      const view = await readLimits(db, [subject], groupIds);
      const { cells } = applicableCells(view, { subject, groupIds }, now);
      const keys: CellKey[] = cells.map(({ cell }) => cell);
      const [totals, mine] = await Promise.all([cellsTotals(db, keys), contributions(db, keys, subject)]);
      const totalOf = new Map(totals.map((row) => [cellId(row), row]));
      const mineOf = new Map(mine.map((row) => [cellId(row), row.used_usd]));
      const budgets = cells.map(({ cell, limit, onDefault }) => {
        const row = totalOf.get(cellId(cell));
        const presented = presentCell({ ...cell, period_start: cell.start, period_end: cell.end, limit_usd: limit.toFixed(), on_default: onDefault, used_usd: row?.used_usd ?? '0', reserved_usd: row?.reserved_usd ?? '0' }, heldOn(cell));
        return { ...presented, my_contribution_usd: formatMoney(mineOf.get(cellId(cell)) ?? '0') };
      });
      const summary = (period: BudgetPeriod) => {
        const own = budgets.find((budget) => budget.scope === 'user' && budget.period === period);
        if (!own) return null;
        const { limit_usd, period_end, period_start, remaining_usd, used_usd } = own;
        return { budgets: budgets.filter((budget) => budget.period === period).length, limit_usd, period_end, period_start, remaining_usd, used_usd };
      };
      return { budgets, day: summary('day'), month: summary('month'), subject };
    },
  };
}
