import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // One connection per user and connector (PLATFORM-API Part 4 §4: a second is a 409); it leaves with its
  // connector. A deleted user's connections are removed by the directory hook before the user row goes.
  await sql`
    create table connections (
      id uuid primary key,
      gateway_id text not null,
      connector_id uuid not null references connectors (id) on delete cascade,
      user_id uuid not null references users (id),
      enabled boolean not null,
      tools_enabled_by_default boolean not null,
      tools_exception_list jsonb not null,
      created_at timestamptz not null,
      updated_at timestamptz not null,
      unique (user_id, connector_id)
    )`.execute(db);
  await sql`create index connections_by_connector on connections (connector_id, created_at, id)`.execute(db);
  await sql`create index connections_by_user on connections (user_id, created_at, id)`.execute(db);
}
