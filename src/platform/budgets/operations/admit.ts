import type { Kysely } from 'kysely';
import type { PlatformDatabase } from '../../db.js';
import { formatMoney, Money, ZERO } from '../../money.js';
import { addDelta, applyCellDeltas, cellId, lockCells, type CellDelta, type CellKey, type CellState } from '../cells.js';
import type { AdmissionDecision, AdmissionRequest } from '../ledger.js';
import { applicableCells, readLimits, type ApplicableCell } from '../limits.js';

export interface AdmitOptions {
  enforcement: 'hard' | 'soft' | 'off';
  requireBudget: boolean;
  /** How long a reservation is kept past admission before a replica may reclaim it (upstreamTimeout + 60 s). */
  holdMs: number;
}

export interface AdmitBatchResult {
  /** One per request, in order. */
  decisions: AdmissionDecision[];
  /** How many requests soft enforcement admitted although a cell had no room. */
  overruns: number;
}

const refusal = (target: ApplicableCell, remaining: Money, needed: Money): string =>
  `scope ${target.cell.scope}, subject "${target.cell.subject_id}", period ${target.cell.period} starting ${target.cell.start.toISOString()}: ` +
  `${formatMoney(remaining)} USD remaining, this request needs up to ${formatMoney(needed)} USD`;

/**
 * Admits a batch of requests in one transaction (`trx`): limits are read here, so a change applies from the
 * next admission; the union of their cells is locked once in key order; each request is decided in arrival
 * order against the totals the earlier ones left (all of its cells or none); then one update per cell and one
 * insert of the reservations.
 */
export async function admitBatch(trx: Kysely<PlatformDatabase>, requests: readonly AdmissionRequest[], options: AdmitOptions): Promise<AdmitBatchResult> {
  const view = await readLimits(
    trx,
    requests.map((request) => request.caller.subject),
    requests.flatMap((request) => request.caller.groupIds),
  );
  const plans = requests.map((request) => ({ request, ...applicableCells(view, request.caller, request.at) }));
  const reserving = options.enforcement !== 'off';
  const states = reserving ? await lockCells(trx, plans.flatMap((plan) => plan.cells.map((applicable) => applicable.cell))) : new Map<string, CellState>();
  const deltas = new Map<string, { key: CellKey; delta: CellDelta }>();
  const reservations: { request: AdmissionRequest; cells: CellKey[] }[] = [];
  let overruns = 0;

  const decisions = plans.map(({ request, cells, budgetedGroupIds }): AdmissionDecision => {
    const hold = { eventId: request.eventId, at: request.at, caller: request.caller, budgetedGroupIds };
    if (!reserving) return { admitted: true, hold: { ...hold, reserved: false } };
    const amount = request.maxCost;
    const full = cells.find(({ cell, limit }) => {
      const state = states.get(cellId(cell));
      return state !== undefined && state.used.plus(state.reserved).plus(amount).greaterThan(limit);
    });
    if (full && options.enforcement === 'hard') {
      const state = states.get(cellId(full.cell)) ?? { used: ZERO, reserved: ZERO };
      return { admitted: false, code: 'budget_exhausted', message: refusal(full, Money.max(ZERO, full.limit.minus(state.used).minus(state.reserved)), amount) };
    }
    if (full) overruns++;
    if (cells.length === 0) {
      if (options.enforcement === 'hard' && options.requireBudget) {
        return { admitted: false, code: 'no_budget', message: `no budget applies to "${request.caller.subject}" and budgets.requireBudget is on; a billing administrator can set a user, group or default budget` };
      }
      return { admitted: true, hold: { ...hold, reserved: false } };
    }
    for (const { cell } of cells) {
      const state = states.get(cellId(cell));
      if (state) state.reserved = state.reserved.plus(amount);
      addDelta(deltas, cell, { reserved: amount });
    }
    reservations.push({ request, cells: cells.map(({ cell }) => ({ scope: cell.scope, subject_id: cell.subject_id, period: cell.period, ordinal: cell.ordinal })) });
    return { admitted: true, hold: { ...hold, reserved: true } };
  });

  await applyCellDeltas(trx, deltas);
  if (reservations.length > 0) {
    await trx
      .insertInto('budget_reservations')
      .values(
        reservations.map(({ request, cells }) => ({
          event_id: request.eventId,
          cells: JSON.stringify(cells),
          amount_usd: request.maxCost.toFixed(),
          admitted_at: request.at,
          expires_at: new Date(request.at.getTime() + options.holdMs),
          event: JSON.stringify(request.pendingEvent),
        })),
      )
      .execute();
  }
  return { decisions, overruns };
}
