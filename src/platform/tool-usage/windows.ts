import { InvalidInputError } from '../../core/errors.js';

/* Windows, buckets and their cover by roll-up blocks (PLATFORM-API Part 4 §8). All times in milliseconds. */

/** Buckets are aligned from 1970-01-05T00:00:00Z, a Monday, so weeks start on Mondays. */
export const ORIGIN_MS = Date.UTC(1970, 0, 5);
const SECOND = 1_000;
const HOUR = 3_600 * SECOND;
const DAY = 24 * HOUR;

/** The widths the roll-ups are kept at, in seconds, widest first; each divides every wider one and every bucket width at least as wide. */
export const COUNT_WIDTHS = [86_400, 3_600, 900, 60] as const;
/** Distinct users are rolled up by day and hour only: finer roll-ups would hold about a row per record. */
export const USER_WIDTHS = [86_400, 3_600] as const;

/** The bucket width for a window: 60 s up to 3 h, 900 s up to 2 d, 3600 s up to 8 d, 86400 s up to 200 d, else a week. */
export function bucketWidthSeconds(spanMs: number): number {
  if (spanMs <= 3 * HOUR) return 60;
  if (spanMs <= 2 * DAY) return 900;
  if (spanMs <= 8 * DAY) return 3_600;
  if (spanMs <= 200 * DAY) return 86_400;
  return 604_800;
}

export const alignDown = (at: number, widthSeconds: number): number => {
  const width = widthSeconds * SECOND;
  return ORIGIN_MS + Math.floor((at - ORIGIN_MS) / width) * width;
};
const alignUp = (at: number, widthSeconds: number): number => {
  const down = alignDown(at, widthSeconds);
  return down === at ? at : down + widthSeconds * SECOND;
};

/** The start of every bucket of width `widthSeconds` that meets [from, to), zero-filling included. */
export function bucketStarts(from: number, to: number, widthSeconds: number): number[] {
  const starts: number[] = [];
  for (let at = alignDown(from, widthSeconds); at < to; at += widthSeconds * SECOND) starts.push(at);
  return starts;
}

/** A block of the window: whole roll-up buckets of `width` seconds, or raw records (`width` 0) where no roll-up fits exactly. */
export interface Block {
  width: number;
  from: number;
  to: number;
}

/**
 * Covers [from, to) exactly with the widest aligned roll-up blocks of `widths` (widest first), and raw
 * records at the ragged edges: a 30-day window reads about 30 day rows, two edges of hours and minutes,
 * and at most two partial minutes of records.
 */
export function cover(from: number, to: number, widths: readonly number[]): Block[] {
  const [width, ...finer] = widths;
  if (from >= to) return [];
  if (width === undefined) return [{ width: 0, from, to }];
  const start = alignUp(from, width);
  const end = alignDown(to, width);
  if (start >= end) return cover(from, to, finer);
  return [...cover(from, start, finer), { width, from: start, to: end }, ...cover(end, to, finer)];
}

/** An RFC 3339 timestamp of a query parameter; a 400 naming it otherwise. */
export function parseInstant(field: string, text: string): number {
  const at = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i.test(text) ? Date.parse(text) : Number.NaN;
  if (Number.isNaN(at)) throw new InvalidInputError(`${field}: "${text}" is not an RFC 3339 timestamp (e.g. 2026-11-25T16:42:39.123Z)`);
  return at;
}
