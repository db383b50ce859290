import type { StoredPolicy } from './backend.js';
import type { AiPolicy, Condition, PolicyStatus } from './schemas.js';
import { API_VERSION, KIND } from './validate.js';

/** The resource as responses carry it: Kubernetes-style, empty maps omitted, the namespace from configuration. */
export function presentPolicy(policy: StoredPolicy, namespace: string): AiPolicy {
  const { labels, annotations } = policy;
  return {
    apiVersion: API_VERSION,
    kind: KIND,
    metadata: {
      name: policy.name,
      namespace,
      uid: policy.uid,
      resourceVersion: policy.resourceVersion,
      generation: policy.generation,
      creationTimestamp: policy.creationTimestamp,
      ...(Object.keys(labels).length > 0 && { labels }),
      ...(Object.keys(annotations).length > 0 && { annotations }),
      ...(policy.deletionTimestamp !== undefined && { deletionTimestamp: policy.deletionTimestamp }),
      ...(policy.deletionGracePeriodSeconds !== undefined && { deletionGracePeriodSeconds: policy.deletionGracePeriodSeconds }),
    },
    spec: policy.spec,
    status: policy.status,
  };
}

/** What a policy naming another gateway shows until that gateway's server writes its status. */
export const UNOBSERVED: PolicyStatus = { appliedToSecurityPolicy: false, conditions: [], observedGeneration: 0 };

/** What the status of a policy naming this server's gateway depends on besides its generation. */
export interface StatusFacts {
  generation: number;
  gatewayName: string;
  /** The broken rules of an object written to Kubernetes directly (Accepted False, reason Invalid). */
  problems?: readonly string[];
  /** Held by finalizers: listed, not enforced. */
  deleting?: boolean;
}

/**
 * The status this server writes for a policy naming its gateway (section 2.4): Accepted unless it breaks
 * the contract, Ready (enforced) when accepted and not being deleted. A condition keeps its
 * lastTransitionTime while its status stays the same.
 */
export function statusFor(gateway: string, policy: StatusFacts, previous: PolicyStatus | undefined, now: Date): PolicyStatus {
  if (policy.gatewayName !== gateway) return previous ?? UNOBSERVED;
  const condition = (type: string, holds: boolean, reason: string, message: string): Condition => {
    const status = holds ? 'True' : 'False';
    const before = previous?.conditions.find((item) => item.type === type);
    return {
      type,
      status,
      reason,
      message,
      observedGeneration: policy.generation,
      lastTransitionTime: before?.status === status ? before.lastTransitionTime : now.toISOString(),
    };
  };
  const problems = policy.problems ?? [];
  const accepted = problems.length === 0;
  const ready = accepted && policy.deleting !== true;
  const why = accepted ? 'it is being deleted (held by finalizers)' : 'it is not accepted';
  return {
    appliedToSecurityPolicy: ready,
    conditions: [
      accepted ? condition('Accepted', true, 'Accepted', 'the policy is valid') : condition('Accepted', false, 'Invalid', `the policy breaks the AI policy rules: ${problems.join('; ')}`),
      ready ? condition('Ready', true, 'Enforced', `the policy is enforced by the gateway ${gateway}`) : condition('Ready', false, 'NotEnforced', `the gateway ${gateway} does not enforce the policy: ${why}`),
    ],
    observedGeneration: policy.generation,
  };
}
