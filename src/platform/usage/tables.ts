import type { ColumnType } from 'kysely';
import type { BudgetScope } from '../budgets/tables.js';
import type { AiPolicyDecision, UsageOutcome } from './schemas.js';

type Timestamp = ColumnType<Date, Date, Date>;

export interface ChargesTable {
  id: string;
  event_id: string;
  event_time: Timestamp;
  scope: BudgetScope;
  subject_id: string;
  auth_subject: string;
  charged_usd: ColumnType<string, string, string>;
  model: string;
  provider: string;
  interaction_id: string;
  period_start: Timestamp;
  period_end: Timestamp;
  pricing_catalog_id: string;
}

export interface UsageEventsTable {
  id: string;
  event_time: Timestamp;
  ingest_time: Timestamp;
  auth_issuer: string | null;
  auth_subject: string;
  virtual_key_id: string | null;
  platform_user_id: string | null;
  platform_groups: ColumnType<string[], string, string>;
  requested_model: string;
  model: string;
  provider: string;
  route: string;
  outcome: UsageOutcome;
  upstream_status: number;
  duration_ms: number;
  raw_usage: ColumnType<Record<string, unknown> | null, string | null, string | null>;
  interaction_id: string;
  ai_policy: ColumnType<AiPolicyDecision, string, string>;
}

export interface UsageTables {
  charges: ChargesTable;
  usage_events: UsageEventsTable;
}
