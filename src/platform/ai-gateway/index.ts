import { registerAiPoliciesFeature, type AiPoliciesFeature } from '../ai-policies/index.js';
import type { PlatformContext } from '../context.js';
import type { PricingFeature } from '../pricing/index.js';
import { registerAiGatewayIntrospectionRoutes } from './routes.js';
import { createAiGatewayService } from './service.js';

/** AI gateway management (/ai-gateway/v1): AI policies, and the models and identities they decide. */
export function registerAiGatewayFeature(context: PlatformContext, features: { pricing: PricingFeature }): Promise<AiPoliciesFeature> {
  const { access, config, identity } = context;
  return registerAiPoliciesFeature(context, (scope, { enforcement }) => {
    const service = createAiGatewayService({ catalog: features.pricing.catalog, llmGateway: config.llmGateway, enforcement, identity });
    registerAiGatewayIntrospectionRoutes(scope, { service, access, gateway: config.aiGateway.gateway });
  });
}
