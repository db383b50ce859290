import type { BudgetPeriod } from './tables.js';

/*
 * Budget periods (PLATFORM-API Part 3 §3.1): UTC calendar days and months, each a key. The ordinal is
 * days since 1970-01-01 or months since 1970-01; a new period is a new key, so nothing is ever reset.
 */

const DAY_MS = 86_400_000;

export interface PeriodKey {
  period: BudgetPeriod;
  ordinal: number;
  /** Inclusive. */
  start: Date;
  /** Exclusive. */
  end: Date;
}

export function dayOf(at: Date): PeriodKey {
  const ordinal = Math.floor(at.getTime() / DAY_MS);
  return { period: 'day', ordinal, start: new Date(ordinal * DAY_MS), end: new Date((ordinal + 1) * DAY_MS) };
}

export function monthOf(at: Date): PeriodKey {
  const year = at.getUTCFullYear();
  const month = at.getUTCMonth();
  return { period: 'month', ordinal: (year - 1970) * 12 + month, start: new Date(Date.UTC(year, month, 1)), end: new Date(Date.UTC(year, month + 1, 1)) };
}

export function periodOf(period: BudgetPeriod, at: Date): PeriodKey {
  return period === 'day' ? dayOf(at) : monthOf(at);
}

/** The period of a stored cell key. */
export function periodAt(period: BudgetPeriod, ordinal: number): PeriodKey {
  if (period === 'day') return dayOf(new Date(ordinal * DAY_MS));
  return monthOf(new Date(Date.UTC(1970 + Math.floor(ordinal / 12), ordinal % 12, 1)));
}
