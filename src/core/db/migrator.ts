import { Migrator, type Kysely, type Migration, type MigrationProvider } from 'kysely';

/** Migrations are TypeScript modules listed in code, so the build carries them and order is explicit. */
export function createMigrator(db: Kysely<unknown>, migrations: Record<string, Migration>, table: string): Migrator {
  const provider: MigrationProvider = { getMigrations: () => Promise.resolve(migrations) };
  return new Migrator({ db, provider, migrationTableName: table, migrationLockTableName: `${table}_lock` });
}

export async function migrateToLatest(migrator: Migrator): Promise<string[]> {
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(`migration failed: ${JSON.stringify(error)}`);
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

export async function pendingMigrations(migrator: Migrator): Promise<string[]> {
  const all = await migrator.getMigrations();
  return all.filter((m) => m.executedAt === undefined).map((m) => m.name);
}
