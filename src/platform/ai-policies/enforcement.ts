import { isVisible } from '../../core/auth/claims.js';
import type { StoredPolicy } from './backend.js';

/** A policy of the enforcement set, as admission uses it. */
export interface EnforcedPolicy {
  name: string;
  description: string;
  servers: readonly string[];
  matchers: readonly Readonly<Record<string, string>>[];
}

/** What the policies say about one caller at gateway G (PLATFORM-API Part 5 rule 13). */
export interface AiDecision {
  /** G has policies (or requirePolicy is on): deny by default. */
  governed: boolean;
  /** The policies one of whose matchers the caller's claims satisfy, by name. */
  matched: EnforcedPolicy[];
  /** Every catalog model is allowed (v1alpha1 policies restrict no model). */
  unrestrictedModels: boolean;
  /** The connector names allowed, or every connector. */
  servers: { every: true } | { every: false; names: ReadonlySet<string> };
}

/** The LLM gateway's admission step 6 (rule 16): the answer, and what its usage event records. */
export interface ModelAdmission {
  allowed: boolean;
  /** The usage event's `ai_policy`. */
  aiPolicy: { decision: 'allowed' | 'denied'; policies: string[] };
  /** For a denial: the 403 model_not_allowed message, naming the gateway. */
  message?: string;
}

export interface AiEnforcement {
  /** Pure and in memory: no I/O, so the gateways can ask on every request. */
  decide(claims: Readonly<Record<string, unknown>>): AiDecision;
  /** Compiles the enforcement set again from every policy (the view calls it on each change). */
  load(policies: readonly StoredPolicy[]): void;
}

/** Rule 16: a caller no policy matches is refused at a governed gateway; every event names the matched policies. */
export function admitModel(decision: AiDecision, gateway: string): ModelAdmission {
  const policies = decision.matched.map((policy) => policy.name);
  if (decision.unrestrictedModels) return { allowed: true, aiPolicy: { decision: 'allowed', policies } };
  return {
    allowed: false,
    aiPolicy: { decision: 'denied', policies },
    message: `no AI policy of the gateway ${gateway} matches this caller, so no model is allowed; ask an AI policy administrator for a policy whose principal matchers match your claims`,
  };
}

/** Rule 17: may the caller use the connector named `connectorName`? (Part 4's connector policies apply besides.) */
export function connectorAllowed(decision: AiDecision, connectorName: string): boolean {
  return decision.servers.every || decision.servers.names.has(connectorName);
}

/**
 * The claims of a virtual key's caller (rule 13): its owner's directory record, as a token would carry
 * them; `groups` are the names of the owner's direct and inherited groups.
 */
export function keyOwnerClaims(owner: { issuer: string | null; subject: string; email: string | null; userName: string; groupNames: readonly string[] }): Record<string, unknown> {
  return {
    ...(owner.issuer !== null && { iss: owner.issuer }),
    sub: owner.subject,
    ...(owner.email !== null && { email: owner.email }),
    preferred_username: owner.userName,
    groups: [...owner.groupNames],
  };
}

/**
 * A caller's claims as the registry's claim rules read them: strings, and arrays of strings. A number or
 * boolean matches by its JSON text, an array holding such values too; an object never matches.
 */
export function claimsForMatching(claims: Readonly<Record<string, unknown>>): Record<string, string | string[]> {
  const scalar = (value: unknown): string | undefined => (typeof value === 'string' ? value : typeof value === 'number' || typeof value === 'boolean' ? JSON.stringify(value) : undefined);
  const normalized: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(claims)) {
    if (Array.isArray(value)) normalized[name] = value.flatMap((item) => scalar(item) ?? []);
    else {
      const text = scalar(value);
      if (text !== undefined) normalized[name] = text;
    }
  }
  return normalized;
}

/** Rule 13: accepted (an object written to Kubernetes directly may not be), and not held by finalizers. */
const isEnforceable = (policy: StoredPolicy) =>
  policy.deletionTimestamp === undefined && policy.status.conditions.some((condition) => condition.type === 'Accepted' && condition.status === 'True');

const indexKey = (name: string, value: string) => `${name}\u0000${value}`;

/**
 * The enforcement set of gateway G, compiled for admission: each matcher is filed under one of its claim
 * pairs, so a decision looks only at the matchers that share a pair with the caller, whatever the
 * number of policies.
 */
export function createAiEnforcement(options: { gateway: string; requirePolicy: boolean }): AiEnforcement {
  let enforced: EnforcedPolicy[] = [];
  let index = new Map<string, { policy: number; matcher: Readonly<Record<string, string>> }[]>();

  return {
    load(policies) {
      enforced = policies
        .filter((policy) => policy.spec.gatewayRef.name === options.gateway && isEnforceable(policy))
        .map((policy) => ({
          name: policy.name,
          description: policy.spec.description ?? '',
          servers: policy.spec.mcpPolicy?.servers ?? [],
          matchers: policy.spec.principalMatchers.map((matcher) => matcher.claims),
        }));
      const next = new Map<string, { policy: number; matcher: Readonly<Record<string, string>> }[]>();
      enforced.forEach((policy, position) => {
        for (const matcher of policy.matchers) {
          const [first] = Object.entries(matcher).sort(([left], [right]) => (left < right ? -1 : left > right ? 1 : 0));
          if (!first) continue;
          const key = indexKey(first[0], first[1]);
          next.set(key, [...(next.get(key) ?? []), { policy: position, matcher }]);
        }
      });
      index = next;
    },
    decide(claims) {
      const governed = enforced.length > 0 || options.requirePolicy;
      const held = claimsForMatching(claims);
      const hits = new Set<number>();
      for (const [name, value] of Object.entries(held)) {
        for (const item of typeof value === 'string' ? [value] : value) {
          for (const candidate of index.get(indexKey(name, item)) ?? []) {
            if (!hits.has(candidate.policy) && isVisible(candidate.matcher, held)) hits.add(candidate.policy);
          }
        }
      }
      const matched = [...hits].sort((left, right) => left - right).map((position) => enforced[position] as EnforcedPolicy);
      if (!governed) return { governed, matched, unrestrictedModels: true, servers: { every: true } };
      const names = new Set(matched.flatMap((policy) => policy.servers));
      return { governed, matched, unrestrictedModels: matched.length > 0, servers: names.has('*') ? { every: true } : { every: false, names } };
    },
  };
}
