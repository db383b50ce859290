import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { LookupFunction } from 'node:net';
import { hostname } from 'node:os';
import type { Logger } from 'pino';
import { createServiceHost, migrateServiceDatabase } from '../core/service/host.js';
import { systemClock, type Clock } from '../core/clock.js';
import { parseDuration } from '../core/config/duration.js';
import type { Database } from '../core/db/database.js';
import { listenForChanges, type ChangeListener } from '../core/db/notifications.js';
import type { HttpApp } from '../core/http/app.js';
import { createLogger } from '../core/telemetry/logger.js';
import { traceTimers } from '../core/telemetry/traced-timer.js';
import type { Tracing } from '../core/telemetry/tracing.js';
import type { SpanExporter } from '@opentelemetry/sdk-trace-base';
import { createAuditLog, noAuditLog, registerHttpAudit, resourceExists } from './audit/index.js';
import { createEntriesService } from './entries/service.js';
import { reconcileConfig } from './operations/reconcile-config.js';
import { createRegistriesService } from './registries/service.js';
import { createSourcesService, type CatalogEvents } from './sources/service.js';
import { createCatalogReadModel, type CatalogReadModel } from './catalog/read-model.js';
import { createCatalogService } from './catalog/service.js';
import type { RegistryConfig } from './config.js';
import type { RegistryDatabase } from './tables.js';
import { registerSourceRoutes } from './sources/routes.js';
import { registerRegistryRoutes } from './registries/routes.js';
import { registerEntryRoutes } from './entries/routes.js';
import { registerIdentityRoutes } from './identity/routes.js';
import { registerAuthentication } from './identity/authentication.js';
import { authorizeSources } from './sources/authz.js';
import { authorizeRegistries } from './registries/authz.js';
import { authorizeEntries } from './entries/authz.js';
import { createConsumerAccess } from './catalog/authz.js';
import { createAccessPolicy } from './identity/policy.js';
import { registerConsumerRoutes } from './catalog/routes.js';
import { PackageRecordSchema, ServerRecordSchema } from './catalog/schemas.js';
import { SourceSchema } from './sources/schemas.js';
import { RegistrySchema } from './registries/schemas.js';
import { ErrorSchema } from '../core/http/schemas.js';
import { REGISTRY_MIGRATION_TABLE, registryMigrations } from './migrations/index.js';
import { createSourceProvider, type ProviderOptions } from './sources/providers/index.js';
import { createSourceAccess } from './sources/access.js';
import { createKubernetesWatchers, type KubernetesWatchers } from './sources/providers/kubernetes/watchers.js';
import { createSyncScheduler, type SyncScheduler } from './sync/scheduler.js';
import { CATALOG_CHANNEL } from './sync/operations/write-source-entries.js';
import { createSyncMetrics, type SyncMetrics } from './sync/metrics.js';

export interface RegistryAppOptions {
  config: RegistryConfig;
  /** An open database; when absent one is created from config.database and closed on stop. */
  database?: Database<RegistryDatabase>;
  clock?: Clock;
  logger?: Logger;
  /** false: no background syncing (tests drive `scheduler.runDue()` themselves). */
  backgroundSync?: boolean;
  providerOptions?: ProviderOptions;
  /** The process environment, passed in by the composition root: git reads PATH and HOME, kubernetes sources KUBECONFIG and KUBERNETES_SERVICE_HOST. */
  env?: Record<string, string | undefined>;
  /** Answers the DNS questions of the sourceAccess checks instead of the system resolver (tests). */
  lookup?: LookupFunction;
  /** Least time between JWKS fetches caused by unknown key ids (default 30 s; tests shorten it). */
  jwksCooldownMs?: number;
  /** Traces go to this exporter instead of telemetry.endpoint (tests). */
  spanExporter?: SpanExporter;
}

export interface RegistryApp {
  http: HttpApp;
  database: Database<RegistryDatabase>;
  readModel: CatalogReadModel;
  scheduler: SyncScheduler;
  /** The watches of kubernetes sources this replica holds the lease of. */
  kubernetes: KubernetesWatchers;
  /** Starts background work (sync, change watching). */
  start(): void;
  /** Marks the replica as going away: /readiness answers 503 from now on. */
  drain(): void;
  close(): Promise<void>;
}

export const VERSION = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;

/**
 * Applies pending migrations, as the user of `migrationUrl` when one is set (the server's own user
 * may then lack DDL rights), else on the server's connection.
 */
export function migrateRegistryDatabase(database: RegistryConfig['database']): Promise<string[]> {
  return migrateServiceDatabase(database, registryMigrations, REGISTRY_MIGRATION_TABLE);
}

/**
 * Wires the registry server: database and migrations, the configuration file's resources, the read
 * model, the sync scheduler and the HTTP routes. Tests build the very same app.
 */
export async function buildRegistryApp(options: RegistryAppOptions): Promise<RegistryApp> {
  const { config } = options;
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? createLogger({ level: config.logging.level });
  const host = await createServiceHost<RegistryDatabase>({
    version: VERSION,
    apiVersion: 'v0.1',
    logger,
    database: config.database,
    ...(options.database && { openDatabase: options.database as Database<unknown> }),
    migrations: registryMigrations,
    migrationTable: REGISTRY_MIGRATION_TABLE,
    telemetry: config.telemetry,
    ...(options.spanExporter && { spanExporter: options.spanExporter }),
    openapi: {
      title: 'Toolyard registry server',
      description: 'MCP Registry API v0.1 (consumer) and the v1 admin API',
      bearer: config.auth.mode === 'oauth',
      schemas: [ErrorSchema, ServerRecordSchema, PackageRecordSchema, SourceSchema, RegistrySchema],
    },
  });
  const { http, database, db, tracing, metrics: metricsRegistry } = host;
  const reconciled = await db.transaction().execute((trx) => reconcileConfig(trx, config, clock.now()));
  if (reconciled.created.length + reconciled.updated.length + reconciled.deleted.length > 0) logger.info(reconciled, 'configuration applied');

  const readModel = createCatalogReadModel({ db, logger });
  await readModel.refresh();
  const env = options.env ?? {};
  const access = createSourceAccess(config.sourceAccess, { ...(options.lookup && { lookup: options.lookup }) });
  const syncMetrics = traceSyncs(createSyncMetrics(metricsRegistry), tracing);
  const scheduler = createSyncScheduler({
    db,
    clock,
    logger,
    metrics: syncMetrics,
    owner: `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`,
    leaseMs: parseDuration(config.sync.leaseDuration) ?? 30_000,
    pollMs: parseDuration(config.sync.pollInterval) ?? 1_000,
    concurrency: config.sync.concurrency,
    providerFor: (kind, sourceConfig, creationType) => createSourceProvider(kind, sourceConfig, { ...options.providerOptions, env }, creationType === 'API' ? access : undefined),
    onCatalogChanged: () => readModel.refresh().catch((error: unknown) => logger.warn({ err: error }, 'cannot refresh the read model')),
  });
  const kubernetes = createKubernetesWatchers({
    db,
    clock,
    logger,
    metrics: metricsRegistry,
    owner: `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`,
    leaseMs: parseDuration(config.sync.leaseDuration) ?? 30_000,
    pollMs: parseDuration(config.sync.pollInterval) ?? 1_000,
    env,
    onCatalogChanged: () => readModel.refresh().catch((error: unknown) => logger.warn({ err: error }, 'cannot refresh the read model')),
  });
  const events: CatalogEvents = {
    catalogChanged: () => readModel.refresh(),
    syncRequested: (name) => scheduler.request(name),
  };

  const auditLog = config.audit.enabled ? createAuditLog({ file: config.audit.file, clock }) : noAuditLog;
  const audit = config.audit.enabled ? registerHttpAudit(http, { log: auditLog, exists: (type, name) => resourceExists(db, type, name) }) : undefined;
  await registerAuthentication(http, {
    auth: config.auth,
    clock,
    logger,
    ...(audit && { onFailure: audit.authenticationFailed }),
    ...(options.jwksCooldownMs !== undefined && { jwksCooldownMs: options.jwksCooldownMs }),
  });
  const policy = createAccessPolicy(config.auth);
  const sourcesService = createSourcesService({ db, clock, events, access });
  registerConsumerRoutes(http, createCatalogService({ readModel, access: createConsumerAccess(policy) }));
  registerSourceRoutes(http, authorizeSources(sourcesService, policy));
  registerRegistryRoutes(http, authorizeRegistries(createRegistriesService({ db, clock, events }), sourcesService, policy));
  registerEntryRoutes(http, authorizeEntries(createEntriesService({ db, clock, events }), policy));
  registerIdentityRoutes(
    http,
    policy.mode === 'anonymous' ? undefined : (caller) => ({ subject: caller.kind === 'user' ? caller.subject : '', roles: policy.rolesOf(caller) }),
  );
  await http.ready();

  const pollMs = parseDuration(config.sync.pollInterval) ?? 1_000;
  let started = false;
  let listener: ChangeListener | undefined;
  return {
    http,
    database,
    readModel,
    scheduler,
    kubernetes,
    start() {
      if (started) return;
      started = true;
      readModel.watch(pollMs);
      // on a server, other replicas' writes are announced at once; the poll stays as the safety net
      if (database.pool) {
        listener = listenForChanges(database.pool.options, CATALOG_CHANNEL, () => void readModel.refresh().catch(() => undefined), logger);
      }
      if (options.backgroundSync ?? true) {
        scheduler.start();
        kubernetes.start();
      }
    },
    drain: () => host.drain(),
    async close() {
      readModel.close();
      await listener?.close();
      await kubernetes.stop();
      await scheduler.stop();
      await host.close();
      auditLog.close();
    },
  };
}

/** A span per source sync, named by the source and ended with its outcome, through the sync timer. */
function traceSyncs(metrics: SyncMetrics, tracing: Tracing | undefined): SyncMetrics {
  if (!tracing) return metrics;
  return {
    ...metrics,
    duration: traceTimers(metrics.duration, tracing, {
      name: (labels) => `sync ${String(labels.source ?? '')}`,
      attributes: (labels) => ({
        ...(labels.source !== undefined && { 'toolyard.source.name': String(labels.source) }),
        ...(labels.outcome !== undefined && { 'toolyard.sync.outcome': String(labels.outcome) }),
      }),
      failed: (labels) => labels.outcome === 'failed',
    }),
  };
}
