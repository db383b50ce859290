import type { Clock } from '../../core/clock.js';
import { NotFoundError, PreconditionRequiredError } from '../../core/errors.js';
import type { Ids } from '../../core/ids.js';
import type { Actor } from '../identity/actor.js';
import type { AiPolicyBackend, PolicyWrite, StoredPolicy } from './backend.js';
import { readPolicyBody, type RawBody } from './body.js';
import { ViolationsError, type Violation } from './errors.js';
import { applyMergePatch, jsonEqual } from './merge-patch.js';
import { subdomainProblem } from './names.js';
import { etagOf } from './preconditions.js';
import { presentPolicy, statusFor } from './present.js';
import type { AiPolicy } from './schemas.js';
import { listPolicies, type PolicyList } from './list.js';
import type { PageTokens } from './page-token.js';
import { policyViolations } from './validate.js';
import type { PolicyView } from './view.js';

export interface VersionedPolicy {
  policy: AiPolicy;
  etag: string;
}

/** AI policies (PLATFORM-API Part 5 §§1–4); the authorization wrapper checks roles before any of this runs. */
export interface AiPolicyService {
  create(actor: Actor, body: RawBody | undefined): Promise<VersionedPolicy>;
  get(actor: Actor, name: string): Promise<VersionedPolicy>;
  list(actor: Actor, query: Record<string, unknown>): PolicyList;
  patch(actor: Actor, name: string, body: RawBody | undefined, ifMatch: string | undefined): Promise<VersionedPolicy>;
  delete(actor: Actor, name: string, ifMatch: string | undefined): Promise<void>;
}

export interface AiPolicyServiceOptions {
  backend: AiPolicyBackend;
  view: PolicyView;
  tokens: PageTokens;
  clock: Clock;
  ids: Ids;
  /** `aiGateway.gateway`. */
  gateway: { name: string; namespace: string };
  pageTokenTtlMs: number;
}

const CREATE_TYPES = ['application/json'] as const;
const PATCH_TYPES = ['application/merge-patch+json', 'application/json'] as const;

const invalid = (violations: Violation[]) => new ViolationsError(422, violations.map((violation) => violation.message).join('; '), violations);

/** A body without its status, which is never taken from a request (section 2). */
function withoutMaintained(body: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(body).filter(([key]) => key !== 'status'));
}

export function createAiPolicyService(options: AiPolicyServiceOptions): AiPolicyService {
  const { backend, view, clock, ids, gateway } = options;
  const versioned = (policy: StoredPolicy): VersionedPolicy => ({ policy: presentPolicy(policy, gateway.namespace), etag: etagOf(policy.resourceVersion) });
  const requireIfMatch = (ifMatch: string | undefined): string => {
    if (ifMatch === undefined) throw new PreconditionRequiredError('If-Match is required: send the ETag of the policy you read (or * for any version)');
    return ifMatch;
  };
  // the write has committed: a view that cannot follow it marks itself lost (lists answer 503 until it can),
  // and the write still answers what it did
  const seeOwnWrite = () => view.refresh().catch(() => undefined);
  // a list presents the same object while a stored policy stands, so the routes encode it once
  const presented = new WeakMap<StoredPolicy, AiPolicy>();
  const presentOnce = (policy: StoredPolicy) => {
    let resource = presented.get(policy);
    if (!resource) presented.set(policy, (resource = presentPolicy(policy, gateway.namespace)));
    return resource;
  };
  const checkName = (name: string) => {
    if (subdomainProblem(name)) throw new NotFoundError(`no AI policy named "${name}"`);
  };

  return {
    async create(actor, raw) {
      const body = readPolicyBody(raw, CREATE_TYPES);
      const { violations, input } = policyViolations(withoutMaintained(body));
      if (!input) throw invalid(violations);
      const now = clock.now();
      const policy: PolicyWrite = {
        name: input.name,
        uid: ids.uuid(),
        generation: 1,
        creationTimestamp: now.toISOString(),
        labels: input.labels,
        annotations: input.annotations,
        spec: input.spec,
        status: statusFor(gateway.name, { generation: 1, gatewayName: input.spec.gatewayRef.name }, undefined, now),
      };
      const stored = await backend.create(policy, { actor, action: 'ai_policy.create' });
      await seeOwnWrite();
      return versioned(stored);
    },

    async get(_actor, name) {
      checkName(name);
      const policy = await backend.get(name);
      if (!policy) throw new NotFoundError(`no AI policy named "${name}"`);
      return versioned(policy);
    },

    list(_actor, query) {
      return listPolicies(query, { policies: view.sorted(), tokens: options.tokens, now: clock.now().getTime(), ttlMs: options.pageTokenTtlMs, namespace: gateway.namespace, present: presentOnce });
    },

    async patch(actor, name, raw, header) {
      const patch = readPolicyBody(raw, PATCH_TYPES);
      const ifMatch = requireIfMatch(header);
      checkName(name);
      const stored = await backend.update(
        name,
        ifMatch,
        (current) => {
          const before = presentPolicy(current, gateway.namespace);
          const merged = withoutMaintained(applyMergePatch(before, patch) as Record<string, unknown>);
          const violations = patchViolations(before, merged);
          const { violations: rules, input } = policyViolations(merged);
          violations.push(...rules.filter((rule) => !violations.some((known) => known.field === rule.field)));
          if (violations.length > 0 || !input) throw invalid(violations);
          if (jsonEqual(input.spec, current.spec)) return undefined;
          const generation = current.generation + 1;
          const status = statusFor(gateway.name, { generation, gatewayName: input.spec.gatewayRef.name }, current.status, clock.now());
          return { ...current, generation, spec: input.spec, status };
        },
        { actor, action: 'ai_policy.patch' },
      );
      await seeOwnWrite();
      return versioned(stored);
    },

    async delete(actor, name, header) {
      const ifMatch = requireIfMatch(header);
      checkName(name);
      await backend.delete(name, ifMatch, { actor, action: 'ai_policy.delete' });
      await seeOwnWrite();
    },
  };
}

/** Rule 12: the name, labels and annotations are set at create, and the gateway a policy names never changes. */
function patchViolations(before: AiPolicy, merged: Record<string, unknown>): Violation[] {
  const violations: Violation[] = [];
  const metadata = (merged.metadata ?? {}) as Record<string, unknown>;
  const spec = (merged.spec ?? {}) as Record<string, unknown>;
  if (metadata.name !== before.metadata.name) violations.push({ field: 'metadata.name', message: 'metadata.name is not patchable: it is set at create' });
  for (const member of ['labels', 'annotations'] as const) {
    const was = before.metadata[member] ?? {};
    const now = metadata[member] ?? {};
    if (!jsonEqual(was, now)) violations.push({ field: `metadata.${member}`, message: `metadata.${member} is not patchable: they are set at create` });
  }
  if (!jsonEqual(spec.gatewayRef, before.spec.gatewayRef)) violations.push({ field: 'spec.gatewayRef', message: 'spec.gatewayRef: field is immutable' });
  return violations;
}
