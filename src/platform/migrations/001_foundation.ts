import { sql, type Kysely } from 'kysely';
import { CHANGE_GENERATIONS_DDL } from '../../core/db/change-feed.js';

export async function up(db: Kysely<unknown>): Promise<void> {
  await CHANGE_GENERATIONS_DDL.execute(db);
  await sql`
    create table audit_events (
      id uuid primary key,
      occurred_at timestamptz not null,
      actor_kind text not null,
      actor_issuer text,
      actor_subject text,
      actor_user_id uuid,
      action text not null,
      target_type text not null,
      target_id text,
      before jsonb,
      after jsonb,
      request_id text
    )`.execute(db);
  await sql`create index audit_events_by_time on audit_events (occurred_at desc, id desc)`.execute(db);
  await sql`create index audit_events_by_target on audit_events (target_type, target_id, occurred_at desc)`.execute(db);
}
