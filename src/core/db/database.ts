import { mkdir } from 'node:fs/promises';
import { PGlite } from '@electric-sql/pglite';
import { Kysely, PostgresDialect, sql, type Transaction } from 'kysely';
import pg from 'pg';
import { PGliteDialect } from './pglite-dialect.js';

export interface DatabaseOptions {
  /** A PostgreSQL connection string; when set it wins over dataDir. */
  url?: string | undefined;
  /** Data directory of the embedded PGlite database; `memory://` keeps it in memory. */
  dataDir?: string | undefined;
  /** Pool size for a PostgreSQL server. */
  maxConnections?: number;
}

export interface Database<DB> {
  db: Kysely<DB>;
  kind: 'postgres' | 'pglite';
  /** Runs a raw statement on a dedicated connection; used by LISTEN-based invalidation. */
  close(): Promise<void>;
  /** The embedded engine, when there is one (for LISTEN/NOTIFY on PGlite). */
  pglite?: PGlite;
  /** The pg pool, when there is one. */
  pool?: pg.Pool;
}

const INT8_OID = 20;

/** bigint counts fit in a double; one representation on both engines keeps the stores simple. */
function parsers(): pg.CustomTypesConfig {
  const types = new pg.TypeOverrides();
  types.setTypeParser(INT8_OID, Number);
  return types;
}

export async function createDatabase<DB>(options: DatabaseOptions): Promise<Database<DB>> {
  if (options.url) {
    const pool = new pg.Pool({
      connectionString: options.url,
      max: options.maxConnections ?? 10,
      types: parsers(),
    });
    // a lost server connection must not crash the process; queries report the failure instead
    pool.on('error', () => undefined);
    const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
    return { db, kind: 'postgres', pool, close: () => db.destroy() };
  }
  const dataDir = options.dataDir ?? './data/registry';
  if (!dataDir.startsWith('memory://')) await mkdir(dataDir, { recursive: true });
  const pglite = await PGlite.create(dataDir);
  const db = new Kysely<DB>({ dialect: new PGliteDialect(pglite) });
  return {
    db,
    kind: 'pglite',
    pglite,
    close: async () => {
      await db.destroy();
      await pglite.close();
    },
  };
}

/** Runs `work` in one transaction; the callback receives the transaction explicitly. */
export function inTransaction<DB, T>(db: Kysely<DB>, work: (trx: Transaction<DB>) => Promise<T>): Promise<T> {
  return db.transaction().execute(work);
}

export async function ping(db: Kysely<unknown>): Promise<void> {
  await sql`select 1`.execute(db);
}
