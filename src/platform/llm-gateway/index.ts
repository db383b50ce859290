import { parseDuration } from '../../core/config/duration.js';
import { admitModel } from '../ai-policies/enforcement.js';
import type { AiPoliciesFeature } from '../ai-policies/index.js';
import type { BudgetLedger } from '../budgets/ledger.js';
import type { PlatformContext } from '../context.js';
import type { KeysFeature } from '../keys/index.js';
import type { PricingFeature } from '../pricing/index.js';
import { createAdmitter } from './admission.js';
import { usageEvent } from './event.js';
import { createExchanges } from './exchange.js';
import { createCallerIdentities } from '../identity/callers.js';
import { createListedModels } from './models.js';
import { createPipeline } from './pipeline.js';
import { registerGatewayRoutes } from './routes.js';
import { createSettlements } from './settlement.js';
import { createUpstreams } from './upstream.js';

export interface LlmGatewayFeature {
  /** Resolves once every request answered so far is settled (tests; shutdown waits for it too). */
  idle(): Promise<void>;
}

/** The LLM gateway (/llm): OpenAI, Anthropic and Gemini routes, admission against prices and budgets, upstreams, settlement. */
export async function registerLlmGatewayFeature(
  context: PlatformContext,
  features: { keys: KeysFeature; pricing: PricingFeature; ledger: BudgetLedger; aiPolicies: AiPoliciesFeature },
): Promise<LlmGatewayFeature> {
  const { http, db, clock, ids, logger, changes, identity, config } = context;
  const gateway = config.llmGateway;
  const upstreamTimeoutMs = parseDuration(gateway.upstreamTimeout) ?? 600_000;
  const upstreams = createUpstreams({ providers: gateway.providers, connectTimeoutMs: parseDuration(gateway.connectTimeout) ?? 10_000, upstreamTimeoutMs });
  const settlements = createSettlements({ ledger: features.ledger, logger });
  const identities = createCallerIdentities({ db, changes, identity });
  const admitter = createAdmitter({
    catalog: features.pricing.catalog,
    upstreams,
    ledger: features.ledger,
    limits: gateway,
    pendingEvent: (request, priced) =>
      usageEvent(request, { outcome: 'upstream_error', model: priced.model, provider: priced.provider, upstreamStatus: 0, rawUsage: null, durationMs: 0, ingestTime: clock.now() }),
  });
  const { enforcement } = features.aiPolicies;
  const governing = config.aiGateway.gateway.name;
  const modelPolicy = (claims: Readonly<Record<string, unknown>>) => admitModel(enforcement.decide(claims), governing);
  const pipeline = createPipeline({ clock, identities, admitter, exchanges: createExchanges({ clock, logger, settlements, upstreamTimeoutMs }), settlements, modelPolicy });
  await registerGatewayRoutes(http, {
    authentication: features.keys.authentication,
    identities,
    pipeline,
    models: createListedModels({ catalog: features.pricing.catalog, upstreams }),
    modelPolicy,
    ids,
    maxBodyBytes: gateway.maxBodyBytes,
  });
  context.lifecycle.onClose(async () => {
    // exchanges in flight end first (each within upstreamTimeout), then what they settle is written
    await upstreams.close();
    await settlements.idle();
  });
  return { idle: () => settlements.idle() };
}
