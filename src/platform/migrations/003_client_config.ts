import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table client_config_directives (
      id integer primary key check (id = 1),
      config jsonb not null,
      refresh_interval text not null,
      validity text not null,
      revision integer not null,
      updated_at timestamptz
    )`.execute(db);
  await sql`insert into client_config_directives (id, config, refresh_interval, validity, revision) values (1, '{}', '1h', '168h', 1)`.execute(db);
  await sql`
    create table client_config_envelopes (
      id uuid primary key,
      sequence bigint generated always as identity,
      kid text not null,
      etag text not null,
      body text not null,
      issued_at timestamptz not null,
      not_after timestamptz not null,
      directives_revision integer not null
    )`.execute(db);
  await sql`create index client_config_envelopes_newest on client_config_envelopes (sequence desc)`.execute(db);
}
