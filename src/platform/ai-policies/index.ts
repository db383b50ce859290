import type { FastifyInstance } from 'fastify';
import { parseDuration } from '../../core/config/duration.js';
import type { PlatformContext } from '../context.js';
import { authorizeAiPolicies } from './authz.js';
import { createDatabaseBackend, type AiPolicyBackend } from './backend.js';
import { createAiEnforcement, type AiEnforcement } from './enforcement.js';
import { loadPolicyCluster } from './kubernetes-api.js';
import { createKubernetesBackend } from './kubernetes-backend.js';
import { createPageTokens } from './page-token.js';
import { createRateLimiter } from './rate-limit.js';
import { registerAiGatewayRoutes } from './routes.js';
import { AiErrorSchema, AiPolicySchema } from './schemas.js';
import { createAiPolicyService } from './service.js';
import { createPolicyView, type PolicyView } from './view.js';

export interface AiPoliciesFeature {
  /** This replica's view of every AI policy (the enforcement set is compiled from it). */
  view: PolicyView;
  /** The in-memory admission check of the gateways (rule 13), following the view. */
  enforcement: AiEnforcement;
}

const ONE_MIB = 1024 * 1024;
/** How often each replica asks for changes besides the change feed's notices (Part 5 rule 18). */
const POLL_MS = 500;

/** The backend `aiGateway.backend` names, and what starting it takes (the first list of the cluster). */
async function openBackend(context: PlatformContext): Promise<{ backend: AiPolicyBackend; close: () => Promise<void> }> {
  const { db, audit, changes, clock, logger, config } = context;
  const settings = config.aiGateway;
  if (settings.backend === 'database') return { backend: createDatabaseBackend({ db, audit, changes }), close: () => Promise.resolve() };
  const kubeConfig = loadPolicyCluster(settings.kubernetes?.kubeconfig);
  const backend = createKubernetesBackend({ kubeConfig, gateway: settings.gateway, db, audit, clock, logger });
  await backend.firstList;
  return { backend, close: () => backend.stop() };
}

/** AI gateway management (/ai-gateway/v1): AI policies on the configured backend, and the routes `more` adds. */
export async function registerAiPoliciesFeature(
  context: PlatformContext,
  more?: (scope: FastifyInstance, feature: AiPoliciesFeature) => void,
): Promise<AiPoliciesFeature> {
  const { http, clock, ids, logger, access, config } = context;
  const settings = config.aiGateway;
  http.addSchema(AiPolicySchema);
  http.addSchema(AiErrorSchema);
  const { backend, close } = await openBackend(context);
  const view = createPolicyView({ backend, logger, pollMs: POLL_MS });
  const enforcement = createAiEnforcement({ gateway: settings.gateway.name, requirePolicy: settings.requirePolicy });
  view.onUpdate((policies) => enforcement.load(policies));
  const tokens = createPageTokens(await backend.pageTokenKey());
  // a cluster out of reach at start leaves the view unloaded (lists answer 503) until the watch lists it
  await view.refresh().catch((error: unknown) => {
    if (settings.backend === 'database') throw error;
    logger.warn({ err: error }, 'AI policies are not loaded yet');
  });
  const service = createAiPolicyService({
    backend,
    view,
    tokens,
    clock,
    ids,
    gateway: settings.gateway,
    pageTokenTtlMs: parseDuration(settings.pageTokenTtl) ?? 300_000,
  });
  const limiter = createRateLimiter({ ...settings.rateLimit, now: () => clock.now().getTime() });
  await registerAiGatewayRoutes(http, {
    service: authorizeAiPolicies(service, access),
    access,
    rateLimit: (caller) => limiter.take(caller),
    bodyLimit: ONE_MIB,
    ...(more && { more: (scope: FastifyInstance) => more(scope, { view, enforcement }) }),
  });
  context.lifecycle.onStart(() => view.start());
  context.lifecycle.onClose(async () => {
    view.stop();
    await close();
  });
  return { view, enforcement };
}
