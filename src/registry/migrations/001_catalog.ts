import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // config is json, not jsonb: an inline catalog (file.data) must keep its key order to be served untouched
  await sql`
    create table sources (
      name text primary key,
      kind text not null,
      config json not null,
      filter jsonb not null,
      claims jsonb not null,
      sync_interval_ms integer,
      sync_schedule text not null,
      creation_type text not null,
      entries_generation bigint not null default 0,
      created_at timestamptz not null,
      updated_at timestamptz not null
    )`.execute(db);
  // one managed source per deployment, enforced by the database so two replicas cannot race past it
  await sql`create unique index sources_one_managed on sources ((true)) where kind = 'managed'`.execute(db);

  await sql`
    create table source_sync (
      source_name text primary key references sources (name) on delete cascade,
      phase text not null,
      last_attempt timestamptz,
      last_sync_time timestamptz,
      attempt_count integer not null default 0,
      message text not null default '',
      server_count integer not null default 0,
      skill_count integer not null default 0,
      plugin_count integer not null default 0,
      content_hash text,
      next_sync_at timestamptz,
      sync_requested_at timestamptz,
      lease_owner text,
      lease_until timestamptz
    )`.execute(db);
  await sql`create index source_sync_due on source_sync (next_sync_at) where next_sync_at is not null`.execute(db);

  await sql`
    create table registries (
      name text primary key,
      claims jsonb not null,
      creation_type text not null,
      created_at timestamptz not null,
      updated_at timestamptz not null
    )`.execute(db);

  await sql`
    create table registry_sources (
      registry_name text not null references registries (name) on delete cascade,
      source_name text not null references sources (name) on delete restrict,
      position integer not null,
      primary key (registry_name, position),
      unique (registry_name, source_name)
    )`.execute(db);
  await sql`create index registry_sources_source on registry_sources (source_name)`.execute(db);

  // body holds the record exactly as published (compact JSON text), so publisher metadata is served
  // byte-for-byte as it arrived and the read model never re-serializes it
  await sql`
    create table entries (
      id bigint generated always as identity primary key,
      source_name text not null references sources (name) on delete cascade,
      entry_type text not null,
      name text not null,
      version text not null,
      status text not null,
      status_message text,
      title text not null,
      description text not null,
      claims jsonb not null,
      body text not null,
      hash text not null,
      published_at timestamptz not null,
      updated_at timestamptz not null,
      status_changed_at timestamptz not null,
      created_at timestamptz not null,
      unique (source_name, entry_type, name, version)
    )`.execute(db);

  // bumped by every write that changes what the catalog serves; replicas watch it to refresh their read model
  await sql`create table catalog_state (id integer primary key, generation bigint not null)`.execute(db);
  await sql`insert into catalog_state (id, generation) values (1, 0)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['catalog_state', 'entries', 'registry_sources', 'registries', 'source_sync', 'sources']) {
    await sql`drop table if exists ${sql.table(table)}`.execute(db);
  }
}
