import { sql, type Kysely } from 'kysely';

/*
 * The roll-ups are folded from the records after they commit, in the background: `folded_sequence` is the last
 * record of the chain the roll-ups hold, and the reads add the records past it, so every figure stays exact.
 * The roll-ups of a chain already hold every record written before this migration.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create table tool_usage_folds (chain_id text primary key, folded_sequence bigint not null)`.execute(db);
  await sql`insert into tool_usage_folds (chain_id, folded_sequence) select chain_id, head_sequence from tool_usage_chains`.execute(db);
}
