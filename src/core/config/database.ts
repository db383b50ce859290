import { Type, type Static } from '@sinclair/typebox';
import type { DatabaseOptions } from '../db/database.js';

/** The `database` block of every service that keeps its state in PostgreSQL (or the embedded PGlite). */
export function databaseConfigSchema(defaultDataDir: string, description = 'where the service keeps its state') {
  return Type.Object(
    {
      url: Type.Optional(
        Type.String({
          description: 'PostgreSQL connection string; wins over dataDir (env TOOLYARD_DATABASE_URL); sslmode=disable|require|verify-ca|verify-full selects TLS',
        }),
      ),
      caFile: Type.Optional(Type.String({ minLength: 1, description: 'PEM file of the CA that signs the PostgreSQL server certificate; without sslmode it means verify-full' })),
      passwordFile: Type.Optional(Type.String({ minLength: 1, description: 'file holding the password for url (replaces a password in the URL; never logged)' })),
      migrationUrl: Type.Optional(
        Type.String({ minLength: 1, description: 'connection string of a more privileged user that applies migrations; the server then uses url' }),
      ),
      migrationPasswordFile: Type.Optional(Type.String({ minLength: 1, description: 'file holding the password for migrationUrl' })),
      dataDir: Type.String({ default: defaultDataDir, description: 'data directory of the embedded PGlite database' }),
      maxConnections: Type.Integer({ minimum: 1, maximum: 200, default: 10, description: 'PostgreSQL pool size' }),
    },
    { default: {}, additionalProperties: false, description },
  );
}

export type DatabaseConfig = Static<ReturnType<typeof databaseConfigSchema>>;

/** How the server connects: `url` (with its password file) or the embedded data directory. */
export function databaseOptions(database: DatabaseConfig): DatabaseOptions {
  return {
    url: database.url,
    dataDir: database.dataDir,
    maxConnections: database.maxConnections,
    caFile: database.caFile,
    passwordFile: database.passwordFile,
  };
}

/** Where migrations run: as the `migrationUrl` user when one is set, else on the server's own connection. */
export function migrationOptions(database: DatabaseConfig): DatabaseOptions {
  if (database.migrationUrl !== undefined && database.url === undefined) {
    throw new Error('database.migrationUrl: set database.url too (migrations on a server, the data in PGlite would never meet)');
  }
  return database.migrationUrl === undefined
    ? databaseOptions(database)
    : { url: database.migrationUrl, maxConnections: 1, caFile: database.caFile, passwordFile: database.migrationPasswordFile };
}
