import { sql, type Kysely, type Migration } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { testDatabaseTargets } from './database-testing.js';
import { migrateToLatest, pendingMigrations } from './migrator.js';

const table = (name: string): Migration => ({
  up: async (db) => {
    await sql`create table ${sql.table(name)} (id int primary key)`.execute(db);
  },
});

const FIRST = { '001_one': table('one'), '002_two': table('two') };
const NEXT = { ...FIRST, '003_three': table('three') };

describe.each(testDatabaseTargets().map((target) => [target.name, target] as const))('migrations (%s)', (_name, target) => {
  let drop: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await drop?.();
    drop = undefined;
  });

  async function empty(): Promise<Kysely<unknown>> {
    const created = await target.create<unknown>();
    drop = () => created.drop();
    return created.database.db;
  }

  it('applies every migration to an empty database, then finds nothing to do', async () => {
    const db = await empty();
    expect(await pendingMigrations({ db, migrations: FIRST, table: 'test_migrations' })).toEqual(['001_one', '002_two']);
    expect(await migrateToLatest({ db, migrations: FIRST, table: 'test_migrations' })).toEqual(['001_one', '002_two']);
    expect(await migrateToLatest({ db, migrations: FIRST, table: 'test_migrations' })).toEqual([]);
    expect(await pendingMigrations({ db, migrations: FIRST, table: 'test_migrations' })).toEqual([]);
  });

  it('applies only the migrations a new version adds', async () => {
    const db = await empty();
    await migrateToLatest({ db, migrations: FIRST, table: 'test_migrations' });
    expect(await pendingMigrations({ db, migrations: NEXT, table: 'test_migrations' })).toEqual(['003_three']);
    expect(await migrateToLatest({ db, migrations: NEXT, table: 'test_migrations' })).toEqual(['003_three']);
    await sql`select id from three`.execute(db);
  });

  it('refuses a database that a newer version migrated further than this one knows', async () => {
    const db = await empty();
    await migrateToLatest({ db, migrations: NEXT, table: 'test_migrations' });
    await expect(migrateToLatest({ db, migrations: FIRST, table: 'test_migrations' })).rejects.toThrow(
      'corrupted migrations: previously executed migration 003_three is missing',
    );
  });
});
