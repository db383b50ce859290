import { InvalidInputError } from '../../core/errors.js';

/*
 * The time windows of charge and usage reads (PLATFORM-API Part 3 §3.5, §4): RFC 3339 or date bounds,
 * the retention horizon, and the series and export windows with their defaults and clamping.
 */

export const DAY_MS = 86_400_000;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/i;

export interface Window {
  /** Inclusive. */
  from: Date;
  /** Exclusive. */
  to: Date;
}

export const startOfDay = (at: Date): Date => new Date(Math.floor(at.getTime() / DAY_MS) * DAY_MS);
export const addDays = (at: Date, days: number): Date => new Date(at.getTime() + days * DAY_MS);
export const formatDate = (at: Date): string => at.toISOString().slice(0, 10);

/** 00:00Z of today − (retentionDays − 1): older charges and events are never returned, and deleted hourly. */
export function horizonOf(now: Date, retentionDays: number): Date {
  return addDays(startOfDay(now), -(retentionDays - 1));
}

/** A date `YYYY-MM-DD` (a real one: 2026-02-30 is refused), as 00:00Z of that day. */
export function parseDate(field: string, text: string): Date {
  const at = new Date(`${text}T00:00:00.000Z`);
  if (!DATE.test(text) || Number.isNaN(at.getTime()) || formatDate(at) !== text) throw new InvalidInputError(`${field}: "${text}" is not a date (example: 2026-11-25)`);
  return at;
}

/** An RFC 3339 time, or a date meaning 00:00Z of that day. */
export function parseInstant(field: string, text: string): Date {
  if (DATE.test(text)) return parseDate(field, text);
  const at = new Date(text);
  if (!RFC3339.test(text) || Number.isNaN(at.getTime())) {
    throw new InvalidInputError(`${field}: "${text}" is neither an RFC 3339 time nor a date (examples: 2026-11-25T16:42:39.123Z, 2026-11-25)`);
  }
  return at;
}

function requireOrder(from: Date | undefined, to: Date | undefined): void {
  if (from !== undefined && to !== undefined && from >= to) {
    throw new InvalidInputError(`from: must be before to (from ${from.toISOString()} is not before to ${to.toISOString()})`);
  }
}

/** The bounds of a list read: `from` raised to the horizon; `to` as given. */
export function listWindow(from: Date | undefined, to: Date | undefined, horizon: Date): { from: Date; to: Date | undefined } {
  requireOrder(from, to);
  return { from: from === undefined || from < horizon ? horizon : from, to };
}

/**
 * The served window of the series and the export: `to` defaults to tomorrow (the end of today), `from` to
 * 29 days before the last day (today by default: 30 days including today); then `from` is clamped into
 * [horizon, tomorrow] and `to` into [from, tomorrow], so a window wholly outside them is served empty.
 */
export function servedWindow(from: Date | undefined, to: Date | undefined, now: Date, horizon: Date): Window {
  const tomorrow = addDays(startOfDay(now), 1);
  const end = to ?? tomorrow;
  const lastDay = startOfDay(new Date(Math.min(end.getTime(), tomorrow.getTime()) - 1));
  const start = from ?? addDays(lastDay, -29);
  requireOrder(start, end);
  const clamp = (at: Date, low: Date, high: Date) => new Date(Math.min(Math.max(at.getTime(), low.getTime()), high.getTime()));
  const served = clamp(start, horizon, tomorrow);
  return { from: served, to: clamp(end, served, tomorrow) };
}
