import type { Money } from '../money.js';
import type { UsageEvent } from '../usage/schemas.js';
import type { CellKey } from './cells.js';

/*
 * The budget ledger: what the LLM gateway asks of budgets (PLATFORM-API Part 3 §1.2–§1.4). Admission
 * reserves a request's maximum cost on every cell that applies, atomically across replicas; settlement
 * releases it, adds the exact cost and writes the charges and the usage event, once per event id.
 */

/** Who is asking, as resolved at admission. */
export interface LedgerCaller {
  /** The OIDC subject: a user budget's subject_id and every charge's auth_subject. */
  subject: string;
  /** Every group of the caller, direct or transitive, sorted. */
  groupIds: string[];
}

export interface AdmissionRequest {
  /** The usage event id (the response's X-Request-Id). */
  eventId: string;
  /** Admission time: the periods are those containing it. */
  at: Date;
  caller: LedgerCaller;
  /** R: the request's maximum cost (Part 3 §1.2). */
  maxCost: Money;
  /** Written with outcome upstream_error and no charge if the reservation is reclaimed after a crash. */
  pendingEvent: UsageEvent;
}

/** What admission holds for a request until it settles. */
export interface BudgetHold {
  eventId: string;
  at: Date;
  caller: LedgerCaller;
  /** The caller's groups that had a budget at admission: each gets a group charge. */
  budgetedGroupIds: string[];
  /** False when nothing was reserved (enforcement off, or no cell applies). */
  reserved: boolean;
}

export type AdmissionDecision =
  | { admitted: true; hold: BudgetHold }
  /** `message` names the first cell without room: scope, subject, period, period_start, remaining, needed. */
  | { admitted: false; code: 'budget_exhausted' | 'no_budget'; message: string };

export interface SettlementRequest {
  /** The admission's hold; null for a request refused before any reservation (a blocked_downstream event). */
  hold: BudgetHold | null;
  /** The complete usage event. */
  event: UsageEvent;
  /** The exact cost and the catalog version in effect at admission; null or zero: no charges. */
  cost: { usd: Money; pricingCatalogId: string } | null;
}

export interface BudgetLedger {
  /** Checks 7 and 8 of admission: reserve on every applicable cell, or refuse naming why. */
  admit(request: AdmissionRequest): Promise<AdmissionDecision>;
  /** Releases the hold, adds the cost to each cell, writes the charges and the event; a second call for the same event id does nothing. */
  settle(request: SettlementRequest): Promise<void>;
  /** Releases reservations past their expiry (a crashed replica's), writing an upstream_error event each; returns how many. */
  reclaimExpired(): Promise<number>;
}

/** Reservations a ledger holds outside the database (the in-memory ledger's): the reads add them to a cell's reserved. */
export interface HeldReservations {
  reservedOn(key: CellKey): Money;
  /** The user cells holding reservations. */
  heldUserCells(): CellKey[];
}
