import { randomUUID } from 'node:crypto';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { createDatabase, embeddedDatabase, type Database } from './database.js';
import { startPgliteThread } from './pglite-thread.js';

export interface TestDatabaseTarget {
  name: 'pglite' | 'postgres';
  /** Creates an empty database of this kind; `drop` removes it. */
  create<DB>(): Promise<{ database: Database<DB>; url?: string; drop(): Promise<void> }>;
}

/**
 * The engines a store or service test runs on: always PGlite, plus a real PostgreSQL when
 * TOOLYARD_TEST_DATABASE_URL is set. Each test gets its own schema-free database (a fresh PGlite
 * in memory, or a new database created on the server) so tests never see each other's rows.
 */
export function testDatabaseTargets(env: Record<string, string | undefined> = process.env): TestDatabaseTarget[] {
  const targets: TestDatabaseTarget[] = [
    {
      name: 'pglite',
      async create<DB>() {
        const database = embeddedDatabase<DB>(await startPgliteThread({ loadDataDir: await emptyClusterDump() }));
        return { database, drop: () => database.close() };
      },
    },
  ];
  const adminUrl = env.TOOLYARD_TEST_DATABASE_URL;
  if (adminUrl) {
    targets.push({
      name: 'postgres',
      async create<DB>() {
        const name = `toolyard_test_${randomUUID().replace(/-/g, '').slice(0, 16)}`;
        await adminQuery(adminUrl, `create database ${name}`);
        const url = withDatabase(adminUrl, name);
        const database = await createDatabase<DB>({ url, maxConnections: 5 });
        return {
          database,
          url,
          drop: async () => {
            await database.close();
            await adminQuery(adminUrl, `drop database if exists ${name} with (force)`);
          },
        };
      },
    });
  }
  return targets;
}

/**
 * A new in-memory PGlite runs initdb (1.5 to 3 s on a small machine); one loaded from a dump of an empty
 * cluster starts in about a third of that. Each test process dumps one empty cluster and starts every
 * later engine from it, on its own thread as the services run it: still a separate, empty database per test.
 */
let emptyCluster: Promise<Blob> | undefined;

export function emptyClusterDump(): Promise<Blob> {
  emptyCluster ??= (async () => {
    const seed = await PGlite.create('memory://');
    try {
      return await seed.dumpDataDir('none');
    } finally {
      await seed.close();
    }
  })();
  return emptyCluster;
}

async function adminQuery(url: string, statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}
