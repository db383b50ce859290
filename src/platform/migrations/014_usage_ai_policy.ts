import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // events written before AI policies were enforced were admitted by none: the gateway was not governed
  await sql`alter table usage_events add column ai_policy jsonb not null default '{"decision":"allowed","policies":[]}'`.execute(db);
}
