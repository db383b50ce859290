import swagger from '@fastify/swagger';
import type { TSchema } from '@sinclair/typebox';
import type { SpanExporter } from '@opentelemetry/sdk-trace-base';
import type { Migration } from 'kysely';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { databaseOptions, migrationOptions, type DatabaseConfig } from '../config/database.js';
import { createDatabase, ping, type Database } from '../db/database.js';
import { migrateToLatest, pendingMigrations, type Migrations } from '../db/migrator.js';
import { UnavailableError } from '../errors.js';
import { createHttpApp, type HttpApp } from '../http/app.js';
import { registerPublicRoutes } from '../http/public-routes.js';
import { registerHttpTracing } from '../telemetry/http-tracing.js';
import { createHttpMetrics, createMetricsRegistry } from '../telemetry/metrics.js';
import { createSqlTracingPlugin } from '../telemetry/sql-tracing.js';
import { createTracing, type Tracing } from '../telemetry/tracing.js';

export interface ServiceHostOptions {
  version: string;
  apiVersion: string;
  logger: Logger;
  database: DatabaseConfig;
  /** An open database; when absent one is created from `database` and closed on close(). */
  openDatabase?: Database<unknown>;
  migrations: Record<string, Migration>;
  migrationTable: string;
  telemetry: { endpoint?: string | undefined; serviceName: string };
  /** Traces go to this exporter instead of telemetry.endpoint (tests). */
  spanExporter?: SpanExporter;
  openapi: { title: string; description: string; bearer: boolean; schemas: TSchema[] };
  /** Largest accepted request body in bytes (413 above). */
  bodyLimit?: number;
}

export interface ServiceHost<DB> {
  http: HttpApp;
  database: Database<DB>;
  /** The database as the services use it (traced when tracing is on). */
  db: Kysely<DB>;
  metrics: Registry;
  tracing: Tracing | undefined;
  /** /readiness answers 503 from now on. */
  drain(): void;
  close(): Promise<void>;
}

/** Applies pending migrations, as the `migrationUrl` user when one is set. */
export async function migrateServiceDatabase(database: DatabaseConfig, migrations: Record<string, Migration>, table: string): Promise<string[]> {
  const connection = await createDatabase<unknown>(migrationOptions(database));
  try {
    return await migrateToLatest({ db: connection.db, migrations, table });
  } finally {
    await connection.close();
  }
}

/**
 * What every service of Toolyard starts with: its database migrated, tracing, metrics, the HTTP app
 * with its OpenAPI document, and the public routes (/health, /readiness, /version, /metrics,
 * /openapi.json). The service adds its own routes to `http` and calls `http.ready()`.
 */
export async function createServiceHost<DB>(options: ServiceHostOptions): Promise<ServiceHost<DB>> {
  const { logger } = options;
  const migrateSeparately = !options.openDatabase && options.database.migrationUrl !== undefined;
  const applied = migrateSeparately ? await migrateServiceDatabase(options.database, options.migrations, options.migrationTable) : [];
  const database = (options.openDatabase as Database<DB> | undefined) ?? (await createDatabase<DB>(databaseOptions(options.database)));
  const tracing = await createTracing({
    endpoint: options.telemetry.endpoint,
    serviceName: options.telemetry.serviceName,
    serviceVersion: options.version,
    ...(options.spanExporter && { exporter: options.spanExporter }),
  });
  const db = tracing ? database.db.withPlugin(createSqlTracingPlugin(tracing)) : database.db;
  const migrations: Migrations = { db: db as never, migrations: options.migrations, table: options.migrationTable };
  if (!migrateSeparately) applied.push(...(await migrateToLatest(migrations)));
  if (applied.length > 0) logger.info({ migrations: applied }, 'database migrated');

  const metrics = createMetricsRegistry();
  const http = createHttpApp({ logger, metrics: createHttpMetrics(metrics), ...(options.bodyLimit !== undefined && { bodyLimit: options.bodyLimit }) });
  if (tracing) registerHttpTracing(http, tracing);
  await http.register(swagger, {
    // shared schemas keep their own names in the document instead of def-0, def-1, ...
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, index) => (typeof json.$id === 'string' ? json.$id : `def-${index}`) },
    openapi: {
      openapi: '3.1.0',
      info: { title: options.openapi.title, version: options.version, description: options.openapi.description },
      ...(options.openapi.bearer && {
        components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } } },
        security: [{ bearer: [] }],
      }),
    },
  });
  for (const schema of options.openapi.schemas) http.addSchema(schema);

  let draining = false;
  registerPublicRoutes(http, {
    version: options.version,
    apiVersion: options.apiVersion,
    metrics,
    readiness: async () => {
      if (draining) throw new UnavailableError('shutting down');
      try {
        await ping(db as never);
      } catch (error) {
        logger.warn({ err: error }, 'database unreachable');
        throw new UnavailableError('the database is not reachable');
      }
      const pending = await pendingMigrations(migrations);
      if (pending.length > 0) throw new UnavailableError(`migrations pending: ${pending.join(', ')}`);
    },
  });

  return {
    http,
    database,
    db,
    metrics,
    tracing,
    drain() {
      draining = true;
    },
    async close() {
      await http.close();
      await tracing?.shutdown();
      if (!options.openDatabase) await database.close();
    },
  };
}
