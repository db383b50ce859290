import type { ColumnType } from 'kysely';

type Timestamp = ColumnType<Date, Date, Date>;
/** numeric columns come back as strings (exact); written from Money.toFixed(). */
type Numeric = ColumnType<string, string, string>;

export type BudgetScope = 'user' | 'group';
export type BudgetPeriod = 'day' | 'month';

/** The budget collection: scope 'default' (subject_id '') is the organisation default for users. */
export interface BudgetLimitsTable {
  scope: 'default' | BudgetScope;
  subject_id: string;
  day_limit_usd: Numeric | null;
  month_limit_usd: Numeric | null;
}

/** One row (id 1): budget writes lock it; `version` changes with every write (the collection ETag). */
export interface BudgetSettingsTable {
  id: number;
  version: ColumnType<string, string | number, string | number>;
}

/** What a subject spent and holds reserved in one period; the period is part of the key, nothing resets. */
export interface BudgetCellsTable {
  scope: BudgetScope;
  subject_id: string;
  period: BudgetPeriod;
  ordinal: number;
  period_start: Timestamp;
  period_end: Timestamp;
  used_usd: ColumnType<string, string | undefined, string>;
  reserved_usd: ColumnType<string, string | undefined, string>;
}

export interface BudgetReservationsTable {
  event_id: string;
  /** The cells reserved on, each holding amount_usd. */
  cells: ColumnType<{ scope: BudgetScope; subject_id: string; period: BudgetPeriod; ordinal: number }[], string, string>;
  amount_usd: Numeric;
  admitted_at: Timestamp;
  /** admitted_at + upstreamTimeout + 60 s: after this, a crashed replica's reservation is released. */
  expires_at: Timestamp;
  /** The usage event written (outcome upstream_error, no charge) when the reservation is reclaimed. */
  event: ColumnType<Record<string, unknown>, string, string>;
}

/** Settled spend of one cell by (model, provider, auth subject): breakdowns and own shares read these. */
export interface BudgetCellSpendTable {
  scope: BudgetScope;
  subject_id: string;
  period: BudgetPeriod;
  ordinal: number;
  model: string;
  provider: string;
  auth_subject: string;
  used_usd: Numeric;
}

export interface BudgetsTables {
  budget_limits: BudgetLimitsTable;
  budget_settings: BudgetSettingsTable;
  budget_cells: BudgetCellsTable;
  budget_reservations: BudgetReservationsTable;
  budget_cell_spend: BudgetCellSpendTable;
}
