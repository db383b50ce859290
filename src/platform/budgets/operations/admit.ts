import type { Kysely } from 'kysely';
import type { PlatformDatabase } from '../../db.js';
import { applyCellDeltas, lockCells, type CellState } from '../cells.js';
import { decideAdmissions, planOf, type AdmitRules } from '../decide.js';
import type { AdmissionDecision, AdmissionRequest } from '../ledger.js';
import { readLimits } from '../limits.js';

export interface AdmitOptions extends AdmitRules {
  /** How long a reservation is kept past admission before a replica may reclaim it (upstreamTimeout + 60 s). */
  holdMs: number;
}

export interface AdmitBatchResult {
  /** One per request, in order. */
  decisions: AdmissionDecision[];
  /** How many requests soft enforcement admitted although a cell had no room. */
  overruns: number;
}

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
  const plans = requests.map((request) => planOf(view, request));
  const states = options.enforcement === 'off' ? new Map<string, CellState>() : await lockCells(trx, plans.flatMap((plan) => plan.cells.map((applicable) => applicable.cell)));
  const { decisions, reservations, deltas, overruns } = decideAdmissions(plans, states, options);

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
