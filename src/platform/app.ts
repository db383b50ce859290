import { readFileSync } from 'node:fs';
import swaggerUi from '@fastify/swagger-ui';
import type { SpanExporter } from '@opentelemetry/sdk-trace-base';
import type { Logger } from 'pino';
import type { VerifiedToken } from '../core/auth/token-verifier.js';
import { systemClock, type Clock } from '../core/clock.js';
import { createChangeFeed, type ChangeFeed } from '../core/db/change-feed.js';
import type { Database } from '../core/db/database.js';
import type { HttpApp } from '../core/http/app.js';
import { ErrorSchema } from '../core/http/schemas.js';
import { randomIds, type Ids } from '../core/ids.js';
import { createServiceHost, migrateServiceDatabase } from '../core/service/host.js';
import { createLogger } from '../core/telemetry/logger.js';
import { registerAiGatewayFeature } from './ai-gateway/index.js';
import type { AiPoliciesFeature } from './ai-policies/index.js';
import { aiGatewayErrorBody, isAiGatewayPath, registerAiGatewayRequestIds } from './ai-policies/request-id.js';
import { authorizeAudit } from './audit/authz.js';
import { registerAuditRoutes } from './audit/routes.js';
import { registerBudgetsFeature, type BudgetsFeature } from './budgets/index.js';
import { AuditEventSchema } from './audit/schemas.js';
import { createAuditTrail } from './audit/service.js';
import { registerClientConfigFeature } from './client-config/index.js';
import type { Connections } from './connections/lookup.js';
import { registerConnectionsFeature } from './connections/index.js';
import { registerConnectorCredentialsFeature, type UpstreamCredentials } from './connector-credentials/index.js';
import { registerConnectorGatewayFeature } from './connector-gateway/index.js';
import { registerConnectorIdpsFeature } from './connector-idps/index.js';
import type { ConnectorDecisions } from './connector-policies/decisions.js';
import { registerConnectorPoliciesFeature } from './connector-policies/index.js';
import { registerConnectorsFeature } from './connectors/index.js';
import type { PlatformConfig } from './config.js';
import type { PlatformContext } from './context.js';
import type { PlatformDatabase } from './db.js';
import { registerDirectoryFeature } from './directory/index.js';
import { registerDiscoveredServersFeature } from './discovered-servers/index.js';
import { registerGatewaysFeature, type Gateways } from './gateways/index.js';
import { registerScimFeature } from './scim/index.js';
import { createPlatformAccess } from './identity/access.js';
import { registerPlatformAuthentication } from './identity/authentication.js';
import { createIdentityResolver } from './identity/resolver.js';
import { registerKeysFeature, type KeysFeature } from './keys/index.js';
import { registerLlmGatewayFeature, type LlmGatewayFeature } from './llm-gateway/index.js';
import { PLATFORM_MIGRATION_TABLE, platformMigrations } from './migrations/index.js';
import { registerPricingFeature, type PricingFeature } from './pricing/index.js';
import { registerManagedSecretsFeature, type ManagedSecrets } from './secrets/index.js';
import { registerToolUsageFeature, type ToolUsageFeature } from './tool-usage/index.js';
import { registerUsageFeature } from './usage/index.js';

export const VERSION = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
/** The version of the enterprise manager, connector gateway and AI gateway management APIs. */
export const PLATFORM_API_VERSION = '0.1.0';
const ONE_MIB = 1024 * 1024;

export interface PlatformAppOptions {
  config: PlatformConfig;
  /** An open database; when absent one is created from config.database and closed on close(). */
  database?: Database<PlatformDatabase>;
  clock?: Clock;
  ids?: Ids;
  logger?: Logger;
  /** How often the change feed is polled as the safety net behind LISTEN/NOTIFY (default 1 s). */
  changePollMs?: number;
  /** Least time between JWKS fetches caused by unknown key ids (default 30 s; tests shorten it). */
  jwksCooldownMs?: number;
  spanExporter?: SpanExporter;
  /** The process environment (KUBECONFIG, KUBERNETES_SERVICE_HOST say where the discovery cluster is); default process.env. */
  env?: Record<string, string | undefined>;
  /** Routes added after the features and before the app is ready (benchmarks and tests of the gateway steps). */
  extraRoutes?: (context: PlatformContext, features: PlatformFeatures) => void;
}

/** What features hand to the ones that build on them (the gateways). */
export interface PlatformFeatures {
  keys: KeysFeature;
  pricing: PricingFeature;
  budgets: BudgetsFeature;
  llmGateway: LlmGatewayFeature;
  /** The configured connector gateways. */
  gateways: Gateways;
  /** Managed secret values for the connector gateway, and the references that keep them from deletion. */
  secrets: ManagedSecrets;
  /** The connector policies' answers: visibility (use_connector) and the tools a user may call (call_tool). */
  decisions: ConnectorDecisions;
  /** Users' connections to connectors: the connector gateway's per-user state and narrowing. */
  connections: Connections;
  /** The headers each connector's auth sends upstream for a caller, and why one cannot be served to them. */
  credentials: UpstreamCredentials;
  /** The tool-call usage recorder (the connector gateway records every tools/call through it). */
  toolUsage: ToolUsageFeature;
  /** AI policies: this replica's view of them and the admission check the gateways call (not wired into them yet). */
  aiPolicies: AiPoliciesFeature;
}

export interface PlatformApp {
  http: HttpApp;
  database: Database<PlatformDatabase>;
  changes: ChangeFeed;
  features: PlatformFeatures;
  /** Starts background work (the change feed and what follows it). */
  start(): void;
  /** Marks the replica as going away: /readiness answers 503 from now on. */
  drain(): void;
  close(): Promise<void>;
}

export function migratePlatformDatabase(database: PlatformConfig['database']): Promise<string[]> {
  return migrateServiceDatabase(database, platformMigrations, PLATFORM_MIGRATION_TABLE);
}

/**
 * Wires the platform: one process serving the enterprise manager (/v1), SCIM (/scim/v2), the connector
 * gateway, AI gateway management and the LLM gateway. Tests build the very same app.
 */
export async function buildPlatformApp(options: PlatformAppOptions): Promise<PlatformApp> {
  const { config } = options;
  const clock = options.clock ?? systemClock;
  const ids = options.ids ?? randomIds;
  const logger = options.logger ?? createLogger({ level: config.logging.level, name: 'platform' });
  const host = await createServiceHost<PlatformDatabase>({
    version: VERSION,
    apiVersion: PLATFORM_API_VERSION,
    logger,
    database: config.database,
    ...(options.database && { openDatabase: options.database as Database<unknown> }),
    migrations: platformMigrations,
    migrationTable: PLATFORM_MIGRATION_TABLE,
    telemetry: config.telemetry,
    ...(options.spanExporter && { spanExporter: options.spanExporter }),
    openapi: {
      title: 'Toolyard platform',
      description: 'Enterprise manager (/v1), SCIM 2.0 provisioning (/scim/v2), connector gateway, AI gateway management and the LLM gateway',
      bearer: config.auth.mode === 'oauth',
      schemas: [ErrorSchema, AuditEventSchema],
    },
    bodyLimit: ONE_MIB,
  });
  const { http, db, database } = host;
  await http.register(swaggerUi, { routePrefix: '/api/doc', uiConfig: { docExpansion: 'list', deepLinking: true } });

  const changes = createChangeFeed({ database: database as Database<unknown>, db: db as never, logger, pollMs: options.changePollMs ?? 1_000 });
  const audit = createAuditTrail({ db, clock, ids, file: config.audit.file });
  const access = createPlatformAccess(config.auth);
  const identity = createIdentityResolver({ db, clock, ids, config, audit });
  if (config.auth.mode === 'anonymous') await identity.ensureAnonymousUser();
  registerAiGatewayRequestIds(http, ids);
  const tokens = registerPlatformAuthentication(http, {
    config,
    clock,
    logger,
    errorBody: (request, message) => (isAiGatewayPath(request.url) ? aiGatewayErrorBody(request, 401, message) : undefined),
    ...(options.jwksCooldownMs !== undefined && { jwksCooldownMs: options.jwksCooldownMs }),
  });

  const starts: (() => void)[] = [];
  const closes: (() => Promise<void> | void)[] = [];
  const context: PlatformContext = {
    http,
    database,
    db,
    config,
    clock,
    ids,
    logger,
    metrics: host.metrics,
    audit,
    access,
    identity,
    changes,
    hooks: { userDeleted: [] },
    lifecycle: { onStart: (task) => starts.push(task), onClose: (task) => closes.push(task) },
  };
  registerAuditRoutes(http, { audit: authorizeAudit(audit, access), access });
  const features = await registerFeatures(context, { verifyToken: tokens && ((token) => tokens.verify(token)) }, options.env ?? process.env);
  options.extraRoutes?.(context, features);
  await http.ready();

  let started = false;
  return {
    http,
    database,
    changes,
    features,
    start() {
      if (started) return;
      started = true;
      changes.start();
      for (const task of starts) task();
    },
    drain: () => host.drain(),
    async close() {
      for (const task of closes.reverse()) await task();
      await changes.close();
      await host.close();
      audit.close();
    },
  };
}

/** Each feature of the platform, in the order their routes are added. */
async function registerFeatures(
  context: PlatformContext,
  gateway: { verifyToken: ((token: string) => Promise<VerifiedToken>) | undefined },
  env: Record<string, string | undefined>,
): Promise<PlatformFeatures> {
  registerDirectoryFeature(context);
  await registerScimFeature(context);
  await registerClientConfigFeature(context);
  const keys = await registerKeysFeature(context, gateway);
  const pricing = await registerPricingFeature(context);
  registerUsageFeature(context);
  const budgets = await registerBudgetsFeature(context);
  // the gateways below enforce the AI policies, so their view is loaded first
  const aiPolicies = await registerAiGatewayFeature(context, { pricing });
  const llmGateway = await registerLlmGatewayFeature(context, { keys, pricing, ledger: budgets.ledger, aiPolicies });
  const gateways = registerGatewaysFeature(context);
  const secrets = await registerManagedSecretsFeature(context);
  registerConnectorIdpsFeature(context, { secrets });
  const { decisions } = registerConnectorPoliciesFeature(context);
  registerConnectorsFeature(context, { secrets, gateways, decisions });
  const { connections } = registerConnectionsFeature(context, { decisions, gateways });
  const clusterSecrets = registerDiscoveredServersFeature(context, { gateways, env });
  const credentials = registerConnectorCredentialsFeature(context, { secrets, clusterSecrets });
  const toolUsage = await registerToolUsageFeature(context, { gateways });
  await registerConnectorGatewayFeature(context, { keys, gateways, decisions, connections, credentials, toolUsage, aiPolicies, verifyToken: gateway.verifyToken });
  return { keys, pricing, budgets, llmGateway, gateways, secrets, decisions, connections, credentials, toolUsage, aiPolicies };
}
