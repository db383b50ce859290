import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // scim_resource keeps a SCIM-provisioned record exactly as the identity provider sent it (IdPs compare after reading)
  await sql`
    create table users (
      id uuid primary key,
      user_name text not null,
      display_name text not null,
      email text,
      photo_url text,
      active boolean not null,
      source text not null,
      scim_resource jsonb,
      revision integer not null default 1,
      created_at timestamptz not null,
      updated_at timestamptz not null
    )`.execute(db);
  await sql`create index users_by_user_name on users (user_name, id)`.execute(db);
  await sql`create unique index users_scim_user_name on users (source, lower(user_name)) where source like 'scim:%'`.execute(db);
  // SCIM lists a provisioner's records by creation; IdPs look users up by externalId before creating them
  await sql`create index users_by_source on users (source, created_at, id)`.execute(db);
  await sql`create index users_scim_external_id on users (source, (scim_resource->>'externalId')) where scim_resource is not null`.execute(db);

  // a user's external id per issuer: what a token's binding claim resolves to
  await sql`
    create table user_identities (
      issuer text not null,
      external_id text not null,
      user_id uuid not null references users (id) on delete cascade,
      primary key (issuer, external_id)
    )`.execute(db);
  await sql`create index user_identities_by_user on user_identities (user_id)`.execute(db);

  await sql`
    create table groups (
      id uuid primary key,
      name text not null,
      display_name text not null,
      description text not null,
      source text not null,
      external_id text,
      scim_resource jsonb,
      revision integer not null default 1,
      created_at timestamptz not null,
      updated_at timestamptz not null
    )`.execute(db);
  await sql`create unique index groups_unique_name on groups (source, lower(name))`.execute(db);
  await sql`create index groups_by_name on groups (name, id)`.execute(db);
  await sql`create index groups_by_source on groups (source, created_at, id)`.execute(db);

  await sql`
    create table group_members (
      group_id uuid not null references groups (id) on delete cascade,
      member_type text not null check (member_type in ('user', 'group')),
      member_id uuid not null,
      created_at timestamptz not null,
      primary key (group_id, member_type, member_id)
    )`.execute(db);
  await sql`create index group_members_by_member on group_members (member_type, member_id)`.execute(db);
}
