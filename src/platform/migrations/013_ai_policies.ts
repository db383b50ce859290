import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // resourceVersion is one sequence for every policy (PLATFORM-API Part 5 §2.3); deletions take a number too,
  // so a replica reading "everything after version n" learns of both
  await sql`create sequence ai_policy_resource_versions`.execute(db);
  await sql`
    create table ai_policies (
      name text primary key,
      uid uuid not null unique,
      resource_version bigint not null,
      generation bigint not null,
      creation_timestamp timestamptz not null,
      gateway_name text not null,
      labels jsonb not null,
      annotations jsonb not null,
      spec jsonb not null,
      status jsonb not null
    )`.execute(db);
  await sql`create index ai_policies_by_version on ai_policies (resource_version)`.execute(db);
  await sql`create table ai_policy_deletions (name text not null, resource_version bigint primary key)`.execute(db);
  await sql`create table ai_policy_settings (id integer primary key, page_token_key text not null)`.execute(db);
}
