import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table pricing_versions (
      id uuid primary key,
      effective_from timestamptz not null unique,
      provider_aliases jsonb not null,
      spec jsonb not null,
      source text not null check (source in ('baseline', 'operator')),
      created_at timestamptz not null
    )`.execute(db);
  await sql`
    create table pricing_settings (
      id integer primary key check (id = 1),
      baselines_opted_out_at timestamptz
    )`.execute(db);
  await sql`insert into pricing_settings (id) values (1)`.execute(db);
}
