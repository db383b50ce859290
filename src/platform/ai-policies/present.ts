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
    },
    spec: policy.spec,
    status: policy.status,
  };
}

/** What a policy naming another gateway shows until that gateway's server writes its status. */
export const UNOBSERVED: PolicyStatus = { appliedToSecurityPolicy: false, conditions: [], observedGeneration: 0 };

/**
 * The status this server writes for a policy naming its gateway (section 2.4): on the database backend
 * every such policy is accepted (it passed validation) and enforced. A condition keeps its
 * lastTransitionTime while its status stays the same.
 */
export function statusFor(gateway: string, policy: { generation: number; gatewayName: string }, previous: PolicyStatus | undefined, now: Date): PolicyStatus {
  if (policy.gatewayName !== gateway) return previous ?? UNOBSERVED;
  const condition = (type: string, reason: string, message: string): Condition => {
    const before = previous?.conditions.find((item) => item.type === type);
    return {
      type,
      status: 'True',
      reason,
      message,
      observedGeneration: policy.generation,
      lastTransitionTime: before?.status === 'True' ? before.lastTransitionTime : now.toISOString(),
    };
  };
  return {
    appliedToSecurityPolicy: true,
    conditions: [condition('Accepted', 'Accepted', 'the policy is valid'), condition('Ready', 'Enforced', `the policy is enforced by the gateway ${gateway}`)],
    observedGeneration: policy.generation,
  };
}
