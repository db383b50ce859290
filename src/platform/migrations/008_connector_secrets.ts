import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // sealed = format byte, 96-bit IV, GCM tag, ciphertext; the row's id is the additional authenticated data
  await sql`
    create table managed_secrets (
      id uuid primary key,
      name text not null,
      sealed bytea not null,
      created_at timestamptz not null,
      updated_at timestamptz not null
    )`.execute(db);
  await sql`create unique index managed_secrets_name on managed_secrets (lower(name))`.execute(db);
  await sql`create index managed_secrets_by_name on managed_secrets (name, id)`.execute(db);

  // who uses a managed secret: deleting it while a row here names it is refused (the foreign key backs the check)
  await sql`
    create table managed_secret_references (
      owner_type text not null,
      owner_id uuid not null,
      field text not null,
      owner_name text not null,
      managed_secret_id uuid not null references managed_secrets (id),
      primary key (owner_type, owner_id, field)
    )`.execute(db);
  await sql`create index managed_secret_references_by_secret on managed_secret_references (managed_secret_id)`.execute(db);

  await sql`
    create table connector_identity_providers (
      id uuid primary key,
      name text not null,
      provider_type text not null check (provider_type in ('oauth2', 'oidc')),
      config jsonb not null,
      source text not null,
      created_at timestamptz not null,
      updated_at timestamptz not null
    )`.execute(db);
  await sql`create unique index connector_identity_providers_name on connector_identity_providers (lower(name))`.execute(db);
  await sql`create index connector_identity_providers_by_name on connector_identity_providers (name, id)`.execute(db);
}
