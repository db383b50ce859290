import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { PlatformDatabase } from '../../db.js';

/**
 * Reads a query's rows a batch at a time through an SQL cursor (DECLARE … CURSOR, FETCH n), in a
 * transaction of its own that lives as long as the reading: memory holds one batch whatever the result's
 * size, on PostgreSQL and the embedded database alike. A consumer that stops early (a client gone) ends
 * the generator, which rolls the transaction back and frees the connection.
 */
export async function* readThroughCursor<Row>(db: Kysely<PlatformDatabase>, query: RawBuilder<unknown>, batchSize: number): AsyncGenerator<Row[], void, undefined> {
  const trx = await db.startTransaction().setAccessMode('read only').execute();
  let committed = false;
  try {
    // every row is read: plan for the whole result, not (as for cursors by default) its first tenth
    await sql`set local cursor_tuple_fraction = 1.0`.execute(trx);
    await sql`declare read_through no scroll cursor for ${query}`.execute(trx);
    const fetch = sql<Row>`fetch ${sql.raw(String(Math.trunc(batchSize)))} from read_through`;
    for (;;) {
      const { rows } = await fetch.execute(trx);
      if (rows.length > 0) yield rows;
      if (rows.length < batchSize) break;
    }
    await trx.commit().execute();
    committed = true;
  } finally {
    if (!committed) await trx.rollback().execute();
  }
}
