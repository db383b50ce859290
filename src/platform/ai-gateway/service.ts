import type { AiEnforcement } from '../ai-policies/enforcement.js';
import type { PlatformConfig } from '../config.js';
import type { Actor } from '../identity/actor.js';
import type { IdentityResolver } from '../identity/resolver.js';
import { modelLimitsOf } from '../llm-gateway/bounds.js';
import type { PricingCatalog } from '../pricing/catalog.js';
import type { AiModel, AiModelList, CallerIdentity } from './schemas.js';

/** Models and caller identity of AI gateway management (PLATFORM-API Part 5 rules 13–15). */
export interface AiGatewayService {
  models(actor: Actor): Promise<AiModelList>;
  whoami(actor: Actor): Promise<CallerIdentity>;
}

export interface AiGatewayServiceOptions {
  catalog: PricingCatalog;
  llmGateway: PlatformConfig['llmGateway'];
  enforcement: AiEnforcement;
  identity: IdentityResolver;
}

const byText = (left: string, right: string) => (left < right ? -1 : left > right ? 1 : 0);

/** The claims policies are matched against: the token's, or `{sub: "anonymous"}` in anonymous mode. */
const claimsOf = (actor: Actor): Record<string, unknown> => (actor.kind === 'anonymous' ? { sub: actor.subject } : actor.claims);

export function createAiGatewayService(options: AiGatewayServiceOptions): AiGatewayService {
  const { catalog, llmGateway, enforcement, identity } = options;

  /** Rule 14: the priced models whose provider, after provider_aliases, is configured at the LLM gateway. */
  const catalogModels = (): AiModel[] => {
    const version = catalog.inEffect();
    if (!version) return [];
    const created = Math.floor(version.row.effective_from.getTime() / 1000);
    const aliases = version.row.provider_aliases;
    const models = new Map<string, AiModel>();
    for (const provider of llmGateway.providers) {
      const served = aliases[provider.name] ?? provider.name;
      for (const entry of version.row.spec.entries) {
        if (entry.provider !== served || models.has(entry.model)) continue;
        const priced = catalog.lookup(provider.name, entry.model);
        if (!priced) continue;
        models.set(entry.model, {
          id: entry.model,
          object: 'model',
          created,
          owned_by: provider.name,
          display_name: entry.model,
          context_window: modelLimitsOf(llmGateway, priced).maxInputTokens,
        });
      }
    }
    return [...models.values()].sort((left, right) => byText(left.id, right.id));
  };

  const allowedModels = (actor: Actor) => {
    const decision = enforcement.decide(claimsOf(actor));
    return { decision, models: decision.unrestrictedModels ? catalogModels() : [] };
  };

  return {
    async models(actor) {
      await identity.resolve(actor);
      return { object: 'list', data: allowedModels(actor).models };
    },
    async whoami(actor) {
      const { user } = await identity.resolve(actor);
      const claims = claimsOf(actor);
      const { decision, models } = allowedModels(actor);
      const email = typeof claims.email === 'string' ? claims.email : (user.email ?? '');
      const groupsClaim = claims.groups;
      const groups = typeof groupsClaim === 'string' ? [groupsClaim] : Array.isArray(groupsClaim) ? groupsClaim.filter((group): group is string => typeof group === 'string') : [];
      return {
        subject: actor.subject,
        email,
        groups: [...new Set(groups)].sort(byText),
        roles: [...actor.roles].sort(byText),
        matchedPolicies: decision.matched.map((policy) => ({ name: policy.name, description: policy.description, mcpPolicy: { servers: [...policy.servers] } })),
        models: models.map((model) => model.id),
        unrestrictedModels: decision.unrestrictedModels,
      };
    },
  };
}
