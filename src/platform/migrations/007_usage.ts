import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table charges (
      id uuid primary key,
      event_id uuid not null,
      event_time timestamptz not null,
      scope text not null check (scope in ('user', 'group')),
      subject_id text not null,
      auth_subject text not null,
      charged_usd numeric not null,
      model text not null,
      provider text not null,
      interaction_id text not null,
      period_start timestamptz not null,
      period_end timestamptz not null,
      pricing_catalog_id uuid not null
    )`.execute(db);
  await sql`create index charges_by_time on charges (event_time desc, id desc)`.execute(db);
  await sql`create index charges_by_subject on charges (scope, subject_id, event_time desc, id desc)`.execute(db);
  await sql`create index charges_by_auth_subject on charges (auth_subject, event_time desc, id desc)`.execute(db);
  await sql`create unique index charges_once on charges (event_id, scope, subject_id)`.execute(db);

  await sql`
    create table usage_events (
      id uuid primary key,
      event_time timestamptz not null,
      ingest_time timestamptz not null,
      auth_issuer text,
      auth_subject text not null,
      virtual_key_id uuid,
      platform_user_id uuid,
      platform_groups jsonb not null,
      requested_model text not null,
      model text not null,
      provider text not null,
      route text not null,
      outcome text not null check (outcome in ('delivered', 'blocked_downstream', 'client_disconnect', 'upstream_error')),
      upstream_status integer not null,
      duration_ms integer not null,
      raw_usage jsonb,
      interaction_id text not null
    )`.execute(db);
  await sql`create index usage_events_by_time on usage_events (event_time desc, id desc)`.execute(db);
  await sql`create index usage_events_by_auth_subject on usage_events (auth_subject, event_time desc, id desc)`.execute(db);
}
