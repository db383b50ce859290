import type { ColumnType } from 'kysely';

type Json<T> = ColumnType<T, string | null, string | null>;

export interface AuditEventsTable {
  id: string;
  occurred_at: ColumnType<Date, Date, Date>;
  actor_kind: string;
  actor_issuer: string | null;
  actor_subject: string | null;
  actor_user_id: string | null;
  action: string;
  target_type: string;
  target_id: string | null;
  before: Json<unknown> | null;
  after: Json<unknown> | null;
  request_id: string | null;
}

export interface AuditTables {
  audit_events: AuditEventsTable;
  change_generations: { topic: string; generation: number };
}
