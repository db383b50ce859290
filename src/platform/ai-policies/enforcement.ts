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

/** A matcher filed under one of its claim pairs: the pairs it needs, every one of them. */
interface Filed {
  policy: number;
  pairs: readonly (readonly [name: string, value: string])[];
}

/** The visibility rule of the registry's claims (isVisible) over the caller's values as sets. */
function holdsAll(held: ReadonlyMap<string, ReadonlySet<string>>, pairs: Filed['pairs']): boolean {
  for (const [name, value] of pairs) if (held.get(name)?.has(value) !== true) return false;
  return true;
}

/** The map of a claim's values, made on first use. */
function valuesOf<T>(byName: Map<string, Map<string, T>>, name: string): Map<string, T> {
  let values = byName.get(name);
  if (!values) byName.set(name, (values = new Map<string, T>()));
  return values;
}

/**
 * The enforcement set of gateway G, compiled for admission: each matcher is filed under the rarest of its
 * claim pairs (a pair many matchers share, such as an issuer, would have every caller holding it try them
 * all), so a decision looks only at the matchers that share a rare pair with the caller, whatever the
 * number of policies.
 */
export function createAiEnforcement(options: { gateway: string; requirePolicy: boolean }): AiEnforcement {
  let enforced: EnforcedPolicy[] = [];
  let index = new Map<string, Map<string, Filed[]>>();
  // each connector name once, and each policy's connectors by number: a decision with many matched policies
  // unions numbers instead of hashing every policy's strings again
  let serverNames: string[] = [];
  let serverIds: Int32Array[] = [];

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
      const numbers = new Map<string, number>();
      serverNames = [];
      serverIds = enforced.map((policy) =>
        Int32Array.from(policy.servers, (name) => {
          const known = numbers.get(name);
          if (known !== undefined) return known;
          numbers.set(name, serverNames.length);
          return serverNames.push(name) - 1;
        }),
      );
      const shared = new Map<string, Map<string, number>>();
      for (const policy of enforced) {
        for (const matcher of policy.matchers) {
          for (const [name, value] of Object.entries(matcher)) {
            const values = valuesOf(shared, name);
            values.set(value, (values.get(value) ?? 0) + 1);
          }
        }
      }
      const next = new Map<string, Map<string, Filed[]>>();
      enforced.forEach((policy, position) => {
        for (const matcher of policy.matchers) {
          const pairs = Object.entries(matcher);
          let rarest: readonly [string, string] | undefined;
          let fewest = Number.POSITIVE_INFINITY;
          for (const pair of pairs) {
            const count = shared.get(pair[0])?.get(pair[1]) ?? 0;
            if (count < fewest) [rarest, fewest] = [pair, count];
          }
          // a matcher without claims matches nobody (the claim rules' visibility)
          if (!rarest) continue;
          const values = valuesOf(next, rarest[0]);
          const filed = values.get(rarest[1]);
          if (filed) filed.push({ policy: position, pairs });
          else values.set(rarest[1], [{ policy: position, pairs }]);
        }
      });
      index = next;
    },
    decide(claims) {
      const governed = enforced.length > 0 || options.requirePolicy;
      // no policy to match (most gateways): the caller's claims need no reading
      if (enforced.length === 0) return governed ? { governed, matched: [], unrestrictedModels: false, servers: { every: false, names: new Set() } } : { governed, matched: [], unrestrictedModels: true, servers: { every: true } };
      // the caller's values as sets once per decision, not once per matcher tried (isVisible's rule, kept here)
      const held = new Map<string, Set<string>>();
      for (const [name, value] of Object.entries(claimsForMatching(claims))) held.set(name, new Set(typeof value === 'string' ? [value] : value));
      // positions in the enforcement set, so the matched policies come out in name order by a numeric sort
      const seen = new Uint8Array(enforced.length);
      const hits: number[] = [];
      for (const [name, values] of held) {
        const filedByValue = index.get(name);
        if (!filedByValue) continue;
        for (const value of values) {
          for (const candidate of filedByValue.get(value) ?? []) {
            if (seen[candidate.policy] === 1 || !holdsAll(held, candidate.pairs)) continue;
            seen[candidate.policy] = 1;
            hits.push(candidate.policy);
          }
        }
      }
      const positions = Int32Array.from(hits).sort();
      const matched: EnforcedPolicy[] = [];
      for (const position of positions) matched.push(enforced[position] as EnforcedPolicy);
      if (!governed) return { governed, matched, unrestrictedModels: true, servers: { every: true } };
      const names = new Set<string>();
      const taken = new Uint8Array(serverNames.length);
      for (const position of positions) {
        for (const id of serverIds[position] ?? []) {
          if (taken[id] === 1) continue;
          taken[id] = 1;
          names.add(serverNames[id] as string);
        }
      }
      return { governed, matched, unrestrictedModels: matched.length > 0, servers: names.has('*') ? { every: true } : { every: false, names } };
    },
  };
}
