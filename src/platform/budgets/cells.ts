import type { Kysely } from 'kysely';
import { sql } from 'kysely';
import type { PlatformDatabase } from '../db.js';
import { Money, ZERO } from '../money.js';
import { dayOf, monthOf, type PeriodKey } from './periods.js';
import type { BudgetPeriod, BudgetScope } from './tables.js';

/*
 * Budget cells as the ledger handles them: keys, their lock order, and the locked state of a set of cells.
 */

export interface CellKey {
  scope: BudgetScope;
  subject_id: string;
  period: BudgetPeriod;
  ordinal: number;
}

/** A cell key with its period's bounds (what creating the row needs). */
export interface CellSpec extends CellKey {
  start: Date;
  end: Date;
}

/** A locked cell: its totals as committed, changed in memory while a batch decides. */
export interface CellState {
  used: Money;
  reserved: Money;
}

export const cellId = (key: CellKey): string => `${key.scope}\u0000${key.subject_id}\u0000${key.period}\u0000${key.ordinal}`;

const byteOrder = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** The order cells are locked in on every replica: scope, subject_id, period, ordinal (as the primary key sorts with collation C). */
export function compareCells(a: CellKey, b: CellKey): number {
  return byteOrder(a.scope, b.scope) || byteOrder(a.subject_id, b.subject_id) || byteOrder(a.period, b.period) || a.ordinal - b.ordinal;
}

export function cellOf(scope: BudgetScope, subjectId: string, period: PeriodKey): CellSpec {
  return { scope, subject_id: subjectId, period: period.period, ordinal: period.ordinal, start: period.start, end: period.end };
}

/** The day and month cells of a subject at `at`, day first. */
export function cellsAt(scope: BudgetScope, subjectId: string, at: Date): [CellSpec, CellSpec] {
  return [cellOf(scope, subjectId, dayOf(at)), cellOf(scope, subjectId, monthOf(at))];
}

/** Distinct cells, sorted in lock order. */
export function uniqueSorted(cells: readonly CellSpec[]): CellSpec[] {
  const unique = new Map<string, CellSpec>();
  for (const cell of cells) unique.set(cellId(cell), cell);
  return [...unique.values()].sort(compareCells);
}

/**
 * Cell keys as one set-returning expression of four array parameters: a statement's size stays the same
 * however many cells a batch holds (a long list of row constructors exhausts the embedded engine's stack).
 */
export const keyRows = (cells: readonly CellKey[]) =>
  sql`unnest(${cells.map((cell) => cell.scope)}::text[], ${cells.map((cell) => cell.subject_id)}::text[], ${cells.map((cell) => cell.period)}::text[], ${cells.map((cell) => cell.ordinal)}::integer[])`;

/**
 * Creates the missing rows of `cells` and locks them all `for update`, in lock order, inside `trx`; returns
 * their state by cellId. Every writer of cells goes through here, so replicas never wait on each other in a cycle.
 */
export async function lockCells(trx: Kysely<PlatformDatabase>, cells: readonly CellSpec[]): Promise<Map<string, CellState>> {
  const states = new Map<string, CellState>();
  if (cells.length === 0) return states;
  const sorted = uniqueSorted(cells);
  const starts = sorted.map((cell) => cell.start.toISOString());
  const ends = sorted.map((cell) => cell.end.toISOString());
  await sql`
    insert into budget_cells (scope, subject_id, period, ordinal, period_start, period_end)
    select key.scope, key.subject_id, key.period, key.ordinal, bounds.period_start, bounds.period_end
    from ${keyRows(sorted)} with ordinality as key (scope, subject_id, period, ordinal, position)
    join unnest(${starts}::timestamptz[], ${ends}::timestamptz[]) with ordinality as bounds (period_start, period_end, position) on bounds.position = key.position
    order by key.position
    on conflict do nothing`.execute(trx);
  const { rows } = await sql<{ scope: BudgetScope; subject_id: string; period: BudgetPeriod; ordinal: number; used_usd: string; reserved_usd: string }>`
    select scope, subject_id, period, ordinal, used_usd, reserved_usd from budget_cells
    where (scope, subject_id, period, ordinal) in (select * from ${keyRows(sorted)})
    order by scope collate "C", subject_id collate "C", period collate "C", ordinal
    for update`.execute(trx);
  for (const row of rows) states.set(cellId(row), { used: new Money(row.used_usd), reserved: new Money(row.reserved_usd) });
  return states;
}

/** A change to one cell's totals. */
export interface CellDelta {
  used: Money;
  reserved: Money;
}

/** Adds each delta to its (locked) cell: one statement for the whole set. */
export async function applyCellDeltas(trx: Kysely<PlatformDatabase>, deltas: ReadonlyMap<string, { key: CellKey; delta: CellDelta }>): Promise<void> {
  const changed = [...deltas.values()].filter(({ delta }) => !delta.used.isZero() || !delta.reserved.isZero());
  if (changed.length === 0) return;
  const keys = changed.map(({ key }) => key);
  const used = changed.map(({ delta }) => delta.used.toFixed());
  const reserved = changed.map(({ delta }) => delta.reserved.toFixed());
  await sql`
    update budget_cells as cell set used_usd = cell.used_usd + change.used, reserved_usd = cell.reserved_usd + change.reserved
    from (select key.*, amounts.used, amounts.reserved
          from ${keyRows(keys)} with ordinality as key (scope, subject_id, period, ordinal, position)
          join unnest(${used}::numeric[], ${reserved}::numeric[]) with ordinality as amounts (used, reserved, position) on amounts.position = key.position) as change
    where cell.scope = change.scope and cell.subject_id = change.subject_id and cell.period = change.period and cell.ordinal = change.ordinal`.execute(trx);
}

/** Accumulates deltas per cell before they are written once. */
export function addDelta(deltas: Map<string, { key: CellKey; delta: CellDelta }>, key: CellKey, change: Partial<CellDelta>): void {
  const id = cellId(key);
  const current = deltas.get(id) ?? { key: { scope: key.scope, subject_id: key.subject_id, period: key.period, ordinal: key.ordinal }, delta: { used: ZERO, reserved: ZERO } };
  current.delta = { used: current.delta.used.plus(change.used ?? ZERO), reserved: current.delta.reserved.plus(change.reserved ?? ZERO) };
  deltas.set(id, current);
}
