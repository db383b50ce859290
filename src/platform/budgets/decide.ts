import { formatMoney, Money, ZERO } from '../money.js';
import { addDelta, cellId, type CellDelta, type CellKey, type CellState } from './cells.js';
import type { AdmissionDecision, AdmissionRequest } from './ledger.js';
import { applicableCells, type ApplicableCell, type LimitsView } from './limits.js';

/*
 * The admission rules (PLATFORM-API Part 3 §1.2, §3), free of any storage: both ledgers (cells locked in the
 * database, or held in memory on the embedded database) decide with this, so their answers are the same.
 */

export interface AdmitRules {
  enforcement: 'hard' | 'soft' | 'off';
  requireBudget: boolean;
}

export interface Decided {
  /** One per request, in order. */
  decisions: AdmissionDecision[];
  /** The requests that reserved, with the cells each reserved its maxCost on. */
  reservations: { request: AdmissionRequest; cells: CellKey[] }[];
  /** What the reservations add to each cell. */
  deltas: Map<string, { key: CellKey; delta: CellDelta }>;
  /** How many requests soft enforcement admitted although a cell had no room. */
  overruns: number;
}

const refusal = (target: ApplicableCell, remaining: Money, needed: Money): string =>
  `scope ${target.cell.scope}, subject "${target.cell.subject_id}", period ${target.cell.period} starting ${target.cell.start.toISOString()}: ` +
  `${formatMoney(remaining)} USD remaining, this request needs up to ${formatMoney(needed)} USD`;

/** The cells a request is held to under `view`, and its budgeted groups. */
export const planOf = (view: LimitsView, request: AdmissionRequest) => ({ request, ...applicableCells(view, request.caller, request.at) });

/**
 * Decides requests in arrival order against `states` (every applicable cell's totals; a cell absent holds
 * nothing yet): all of a request's cells or none, `used + reserved + R ≤ limit`. Each reservation is added
 * to `states` before the next request is decided.
 */
export function decideAdmissions(plans: readonly ReturnType<typeof planOf>[], states: Map<string, CellState>, rules: AdmitRules): Decided {
  const deltas = new Map<string, { key: CellKey; delta: CellDelta }>();
  const reservations: Decided['reservations'] = [];
  let overruns = 0;
  const reserving = rules.enforcement !== 'off';

  const decisions = plans.map(({ request, cells, budgetedGroupIds }): AdmissionDecision => {
    const hold = { eventId: request.eventId, at: request.at, caller: request.caller, budgetedGroupIds };
    if (!reserving) return { admitted: true, hold: { ...hold, reserved: false } };
    const amount = request.maxCost;
    const full = cells.find(({ cell, limit }) => {
      const state = states.get(cellId(cell));
      return state !== undefined && state.used.plus(state.reserved).plus(amount).greaterThan(limit);
    });
    if (full && rules.enforcement === 'hard') {
      const state = states.get(cellId(full.cell)) ?? { used: ZERO, reserved: ZERO };
      return { admitted: false, code: 'budget_exhausted', message: refusal(full, Money.max(ZERO, full.limit.minus(state.used).minus(state.reserved)), amount) };
    }
    if (full) overruns++;
    if (cells.length === 0) {
      if (rules.enforcement === 'hard' && rules.requireBudget) {
        return { admitted: false, code: 'no_budget', message: `no budget applies to "${request.caller.subject}" and budgets.requireBudget is on; a billing administrator can set a user, group or default budget` };
      }
      return { admitted: true, hold: { ...hold, reserved: false } };
    }
    for (const { cell } of cells) {
      const id = cellId(cell);
      const state = states.get(id) ?? { used: ZERO, reserved: ZERO };
      state.reserved = state.reserved.plus(amount);
      states.set(id, state);
      addDelta(deltas, cell, { reserved: amount });
    }
    reservations.push({ request, cells: cells.map(({ cell }) => ({ scope: cell.scope, subject_id: cell.subject_id, period: cell.period, ordinal: cell.ordinal })) });
    return { admitted: true, hold: { ...hold, reserved: true } };
  });
  return { decisions, reservations, deltas, overruns };
}
