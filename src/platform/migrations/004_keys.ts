import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // owner_ref has no foreign key: a deleted user's keys stay, revoked, for the audit and the usage they carry
  await sql`
    create table virtual_keys (
      id uuid primary key,
      owner_ref uuid not null,
      name text not null,
      metadata jsonb not null,
      state text not null check (state in ('active', 'disabled', 'revoked')),
      disabled_by_admin boolean not null default false,
      secret_hash text not null unique,
      prefix text not null,
      previous_hash text unique,
      previous_valid_until timestamptz,
      expires_at timestamptz,
      created_at timestamptz not null,
      created_by text not null,
      created_by_issuer text,
      last_used_at timestamptz,
      change_seq bigint not null
    )`.execute(db);
  await sql`create index virtual_keys_by_owner on virtual_keys (owner_ref, created_at desc, id desc)`.execute(db);
  await sql`create index virtual_keys_newest on virtual_keys (created_at desc, id desc)`.execute(db);
  // replicas read what changed since their last read: every key write takes the next number
  await sql`create index virtual_keys_by_change on virtual_keys (change_seq)`.execute(db);
  await sql`create sequence virtual_keys_change_seq`.execute(db);
}
