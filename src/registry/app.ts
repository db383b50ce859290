import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import swagger from '@fastify/swagger';
import type { LevelWithSilent, Logger } from 'pino';
import { systemClock, type Clock } from '../core/clock.js';
import { UnavailableError } from '../core/errors.js';
import { parseDuration } from '../core/config/duration.js';
import { createDatabase, ping, type Database } from '../core/db/database.js';
import { createMigrator, migrateToLatest, pendingMigrations } from '../core/db/migrator.js';
import { createHttpApp, type HttpApp } from '../core/http/app.js';
import { createLogger } from '../core/telemetry/logger.js';
import { createHttpMetrics, createMetricsRegistry } from '../core/telemetry/metrics.js';
import { createEntriesService } from './admin/entries-service.js';
import { reconcileConfig } from './admin/operations/reconcile-config.js';
import { createRegistriesService } from './admin/registries-service.js';
import { createSourcesService, type CatalogEvents } from './admin/sources-service.js';
import { createCatalogReadModel, type CatalogReadModel } from './catalog/read-model.js';
import { createCatalogService } from './catalog/service.js';
import type { RegistryConfig } from './config.js';
import type { RegistryDatabase } from './db.js';
import { registerAdminRoutes } from './http/admin-routes.js';
import { registerAuthentication } from './http/authentication.js';
import { authorizeEntries, authorizeRegistries, authorizeSources } from './authz/authorized-services.js';
import { createConsumerAccess } from './authz/consumer-access.js';
import { createAccessPolicy } from './authz/policy.js';
import { registerConsumerRoutes } from './http/consumer-routes.js';
import { registerPublicRoutes } from './http/public-routes.js';
import { ErrorSchema, PackageRecordSchema, RegistrySchema, ServerRecordSchema, SourceSchema } from './http/schemas.js';
import { REGISTRY_MIGRATION_TABLE, registryMigrations } from './migrations/index.js';
import { createSourceProvider, type ProviderOptions } from './sources/index.js';
import { createSyncScheduler, type SyncScheduler } from './sync/scheduler.js';
import { createSyncMetrics } from './sync/metrics.js';

export interface RegistryAppOptions {
  config: RegistryConfig;
  /** An open database; when absent one is created from config.database and closed on stop. */
  database?: Database<RegistryDatabase>;
  clock?: Clock;
  logger?: Logger;
  /** false: no background syncing (tests drive `scheduler.runDue()` themselves). */
  backgroundSync?: boolean;
  providerOptions?: ProviderOptions;
  /** Least time between JWKS fetches caused by unknown key ids (default 30 s; tests shorten it). */
  jwksCooldownMs?: number;
}

export interface RegistryApp {
  http: HttpApp;
  database: Database<RegistryDatabase>;
  readModel: CatalogReadModel;
  scheduler: SyncScheduler;
  /** Starts background work (sync, change watching). */
  start(): void;
  close(): Promise<void>;
}

export const VERSION = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;

/**
 * Wires the registry server: database and migrations, the configuration file's resources, the read
 * model, the sync scheduler and the HTTP routes. Tests build the very same app.
 */
export async function buildRegistryApp(options: RegistryAppOptions): Promise<RegistryApp> {
  const { config } = options;
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? createLogger({ level: config.logging.level as LevelWithSilent });
  const database =
    options.database ??
    (await createDatabase<RegistryDatabase>({ url: config.database.url, dataDir: config.database.dataDir, maxConnections: config.database.maxConnections }));
  const { db } = database;
  const migrator = createMigrator(db as never, registryMigrations, REGISTRY_MIGRATION_TABLE);
  const applied = await migrateToLatest(migrator);
  if (applied.length > 0) logger.info({ migrations: applied }, 'database migrated');
  const reconciled = await db.transaction().execute((trx) => reconcileConfig(trx, config, clock.now()));
  if (reconciled.created.length + reconciled.updated.length + reconciled.deleted.length > 0) logger.info(reconciled, 'configuration applied');

  const metricsRegistry = createMetricsRegistry();
  const readModel = createCatalogReadModel({ db, logger });
  await readModel.refresh();
  const syncMetrics = createSyncMetrics(metricsRegistry);
  const scheduler = createSyncScheduler({
    db,
    clock,
    logger,
    metrics: syncMetrics,
    owner: `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`,
    leaseMs: parseDuration(config.sync.leaseDuration) ?? 30_000,
    pollMs: parseDuration(config.sync.pollInterval) ?? 1_000,
    concurrency: config.sync.concurrency,
    providerFor: (kind, sourceConfig) => createSourceProvider(kind, sourceConfig, options.providerOptions),
    onCatalogChanged: () => readModel.refresh().catch((error: unknown) => logger.warn({ err: error }, 'cannot refresh the read model')),
  });
  const events: CatalogEvents = {
    catalogChanged: () => readModel.refresh(),
    syncRequested: (name) => scheduler.request(name),
  };

  const http = createHttpApp({ logger, metrics: createHttpMetrics(metricsRegistry) });
  await http.register(swagger, {
    // shared schemas keep their own names in the document instead of def-0, def-1, ...
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, index) => (typeof json.$id === 'string' ? json.$id : `def-${index}`) },
    openapi: {
      openapi: '3.1.0',
      info: { title: 'Toolyard registry server', version: VERSION, description: 'MCP Registry API v0.1 (consumer) and the v1 admin API' },
      ...(config.auth.mode === 'oauth' && {
        components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } } },
        security: [{ bearer: [] }],
      }),
    },
  });
  for (const schema of [ErrorSchema, ServerRecordSchema, PackageRecordSchema, SourceSchema, RegistrySchema]) http.addSchema(schema);
  registerAuthentication(http, { auth: config.auth, clock, logger, ...(options.jwksCooldownMs !== undefined && { jwksCooldownMs: options.jwksCooldownMs }) });
  const policy = createAccessPolicy(config.auth);
  registerPublicRoutes(http, {
    version: VERSION,
    metrics: metricsRegistry,
    readiness: async () => {
      try {
        await ping(db as never);
      } catch (error) {
        logger.warn({ err: error }, 'database unreachable');
        throw new UnavailableError('the database is not reachable');
      }
      const pending = await pendingMigrations(migrator);
      if (pending.length > 0) throw new UnavailableError(`migrations pending: ${pending.join(', ')}`);
    },
  });
  const sourcesService = createSourcesService({ db, clock, events });
  registerConsumerRoutes(http, createCatalogService({ readModel, access: createConsumerAccess(policy) }));
  registerAdminRoutes(http, {
    sources: authorizeSources(sourcesService, policy),
    registries: authorizeRegistries(createRegistriesService({ db, clock, events }), sourcesService, policy),
    entries: authorizeEntries(createEntriesService({ db, clock, events }), policy),
    ...(policy.mode !== 'anonymous' && {
      identity: (caller) => ({ subject: caller.kind === 'user' ? caller.subject : '', roles: policy.rolesOf(caller) }),
    }),
  });
  await http.ready();

  const pollMs = parseDuration(config.sync.pollInterval) ?? 1_000;
  let started = false;
  return {
    http,
    database,
    readModel,
    scheduler,
    start() {
      if (started) return;
      started = true;
      readModel.watch(pollMs);
      if (options.backgroundSync ?? true) scheduler.start();
    },
    async close() {
      readModel.close();
      await scheduler.stop();
      await http.close();
      if (!options.database) await database.close();
    },
  };
}
