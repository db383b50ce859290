import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // A connector without a row has the default policy (structured, no group). `document` is kept only in
  // document mode; structured mode shows the text generated from the granted groups. The granted groups are
  // kept in both modes (frozen in document mode) and leave with their connector or group.
  await sql`
    create table connector_policies (
      connector_id uuid primary key references connectors (id) on delete cascade,
      mode text not null check (mode in ('structured', 'document')),
      document text,
      updated_at timestamptz not null
    )`.execute(db);
  await sql`
    create table connector_policy_groups (
      connector_id uuid not null references connector_policies (connector_id) on delete cascade,
      group_id uuid not null references groups (id) on delete cascade,
      primary key (connector_id, group_id)
    )`.execute(db);
  await sql`create index connector_policy_groups_by_group on connector_policy_groups (group_id)`.execute(db);
}
