import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // name, tool prefix and endpoint are each unique on a gateway (PLATFORM-API Part 4 §2); the indexes have the
  // last word when two writes race. provider_id backs the 409 on deleting an identity provider a connector uses.
  await sql`
    create table connectors (
      id uuid primary key,
      gateway_id text not null,
      name text not null,
      tool_prefix text not null,
      endpoint text not null,
      endpoint_key text not null,
      transport text not null check (transport in ('streamable-http', 'sse')),
      auth jsonb not null,
      provider_id uuid references connector_identity_providers (id),
      description text,
      version text,
      icon_url text,
      repository_url text,
      support_url text,
      allow_private_ips boolean not null,
      origin text not null check (origin in ('manual', 'kubernetes_cluster', 'registry')),
      source_name text,
      source_namespace text,
      status text not null check (status in ('verified', 'auth_required', 'unreachable')),
      created_at timestamptz not null,
      updated_at timestamptz not null
    )`.execute(db);
  await sql`create unique index connectors_name on connectors (gateway_id, lower(name))`.execute(db);
  await sql`create unique index connectors_tool_prefix on connectors (gateway_id, tool_prefix)`.execute(db);
  await sql`create unique index connectors_endpoint on connectors (gateway_id, endpoint_key)`.execute(db);
  await sql`create index connectors_by_name on connectors (gateway_id, name, id)`.execute(db);
  await sql`create index connectors_by_provider on connectors (provider_id)`.execute(db);
}
