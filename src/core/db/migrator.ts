import { Migrator, sql, type Kysely, type Migration, type MigrationProvider } from 'kysely';

export interface Migrations {
  db: Kysely<unknown>;
  migrations: Record<string, Migration>;
  /** The table that records applied migrations (its lock table is `<table>_lock`). */
  table: string;
}

/** Migrations are TypeScript modules listed in code, so the build carries them and order is explicit. */
function createMigrator({ db, migrations, table }: Migrations): Migrator {
  const provider: MigrationProvider = { getMigrations: () => Promise.resolve(migrations) };
  return new Migrator({ db, provider, migrationTableName: table, migrationLockTableName: `${table}_lock` });
}

/**
 * The applied migrations in the order they ran, as Kysely orders them, read with two small queries;
 * Kysely's own check introspects the whole catalog, which costs the embedded engine most of a second.
 */
async function appliedMigrations({ db, table }: Migrations): Promise<string[]> {
  const { rows } = await sql<{ present: boolean }>`select to_regclass(quote_ident(${table})) is not null as present`.execute(db);
  if (rows[0]?.present !== true) return [];
  const applied = await sql<{ name: string; timestamp: string }>`select name, timestamp from ${sql.table(table)}`.execute(db);
  return applied.rows
    .sort((a, b) => (a.timestamp === b.timestamp ? a.name.localeCompare(b.name) : new Date(a.timestamp).getTime() - new Date(b.timestamp).getTime()))
    .map((row) => row.name);
}

/**
 * Applies the pending migrations under Kysely's lock. A database whose applied migrations are exactly
 * the known ones, in order, is left alone after one cheap read: that is every start but the first after
 * an upgrade. Anything else (pending, unknown or reordered migrations) goes through the migrator, which
 * applies them or reports the corruption as it always did.
 */
export async function migrateToLatest(set: Migrations): Promise<string[]> {
  const known = Object.keys(set.migrations).sort();
  const applied = await appliedMigrations(set);
  if (applied.length === known.length && applied.every((name, index) => name === known[index])) return [];
  const { error, results } = await createMigrator(set).migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(`migration failed: ${JSON.stringify(error)}`);
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

/** The known migrations not applied yet, in order. */
export async function pendingMigrations(set: Migrations): Promise<string[]> {
  const applied = new Set(await appliedMigrations(set));
  return Object.keys(set.migrations)
    .sort()
    .filter((name) => !applied.has(name));
}
