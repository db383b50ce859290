import type { PolicyWrite, StoredPolicy } from './backend.js';
import { UNOBSERVED } from './present.js';
import type { Condition, PolicySpec, PolicyStatus } from './schemas.js';
import { API_VERSION, KIND, policyViolations, shapeViolations } from './validate.js';
import { isJsonObject } from '../../core/json-object.js';

/*
 * AIPolicy objects as the API server keeps them, read into the backend's StoredPolicy. Objects written
 * to Kubernetes directly may break the contract (an older CRD, a looser schema): reading them never
 * fails, and what they break is what their Accepted condition says.
 */

export const GROUP = 'toolyard.dev';
export const VERSION = 'v1alpha1';
export const PLURAL = 'aipolicies';

export interface KubePolicy {
  apiVersion?: string;
  kind?: string;
  metadata?: {
    name?: string;
    namespace?: string;
    uid?: string;
    resourceVersion?: string;
    generation?: number;
    creationTimestamp?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    deletionTimestamp?: string;
    deletionGracePeriodSeconds?: number;
    finalizers?: string[];
  };
  spec?: unknown;
  status?: unknown;
}

const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
const strings = (value: unknown): Record<string, string> =>
  isJsonObject(value) ? Object.fromEntries(Object.entries(value).filter((entry): entry is [string, string] => typeof entry[1] === 'string')) : {};

/** Kubernetes timestamps have whole seconds; the contract's have milliseconds (`.000`). */
function withMilliseconds(timestamp: string | undefined): string {
  const time = timestamp === undefined ? Number.NaN : Date.parse(timestamp);
  return Number.isNaN(time) ? (timestamp ?? '') : new Date(time).toISOString();
}

/** The spec as responses and admission read it: the members of the right type, whatever else the object holds. */
function specOf(raw: unknown): PolicySpec {
  const spec = isJsonObject(raw) ? raw : {};
  const gatewayRef = isJsonObject(spec.gatewayRef) ? spec.gatewayRef : {};
  const matchers = Array.isArray(spec.principalMatchers) ? spec.principalMatchers : [];
  const read: PolicySpec = {
    gatewayRef: { name: text(gatewayRef.name) ?? '' },
    principalMatchers: matchers.filter(isJsonObject).map((matcher) => ({ claims: strings(matcher.claims) })),
  };
  const description = text(spec.description);
  if (description !== undefined && description !== '') read.description = description;
  if (isJsonObject(spec.mcpPolicy)) {
    const servers = Array.isArray(spec.mcpPolicy.servers) ? spec.mcpPolicy.servers.filter((server): server is string => typeof server === 'string') : [];
    read.mcpPolicy = servers.length > 0 ? { servers } : {};
  }
  return read;
}

const CONDITION_STATUSES = new Set(['True', 'False', 'Unknown']);

function conditionOf(raw: unknown): Condition | undefined {
  if (!isJsonObject(raw) || typeof raw.type !== 'string' || typeof raw.status !== 'string' || !CONDITION_STATUSES.has(raw.status)) return undefined;
  return {
    type: raw.type,
    status: raw.status as Condition['status'],
    reason: text(raw.reason) ?? '',
    message: text(raw.message) ?? '',
    observedGeneration: Number.isInteger(raw.observedGeneration) ? (raw.observedGeneration as number) : 0,
    lastTransitionTime: withMilliseconds(text(raw.lastTransitionTime)),
  };
}

/** The status as written by a gateway's server, or "not observed" until one writes it. */
function statusOf(raw: unknown): PolicyStatus {
  if (!isJsonObject(raw)) return UNOBSERVED;
  return {
    appliedToSecurityPolicy: raw.appliedToSecurityPolicy === true,
    conditions: Array.isArray(raw.conditions) ? raw.conditions.flatMap((condition) => conditionOf(condition) ?? []) : [],
    observedGeneration: Number.isInteger(raw.observedGeneration) ? (raw.observedGeneration as number) : 0,
  };
}

export function storedOf(object: KubePolicy): StoredPolicy {
  const metadata = object.metadata ?? {};
  return {
    name: metadata.name ?? '',
    uid: metadata.uid ?? '',
    resourceVersion: metadata.resourceVersion ?? '',
    generation: metadata.generation ?? 0,
    creationTimestamp: withMilliseconds(metadata.creationTimestamp),
    labels: strings(metadata.labels),
    annotations: strings(metadata.annotations),
    spec: specOf(object.spec),
    status: statusOf(object.status),
    ...(metadata.deletionTimestamp !== undefined && { deletionTimestamp: withMilliseconds(metadata.deletionTimestamp) }),
    ...(metadata.deletionGracePeriodSeconds !== undefined && { deletionGracePeriodSeconds: metadata.deletionGracePeriodSeconds }),
  };
}

/** The body of a create: the API server draws uid, creationTimestamp, generation and resourceVersion. */
export function createBody(policy: PolicyWrite): KubePolicy {
  const { labels, annotations } = policy;
  return {
    apiVersion: API_VERSION,
    kind: KIND,
    metadata: { name: policy.name, ...(Object.keys(labels).length > 0 && { labels }), ...(Object.keys(annotations).length > 0 && { annotations }) },
    spec: policy.spec,
  };
}

/** What an object written to Kubernetes directly breaks of this contract (section 2), as violation messages. */
export function clusterProblems(object: KubePolicy): string[] {
  const metadata = object.metadata ?? {};
  const body = { metadata: { name: metadata.name, labels: metadata.labels, annotations: metadata.annotations }, spec: object.spec };
  const spec = isJsonObject(object.spec) ? shapeViolations({ spec: object.spec }) : [];
  return [...spec, ...policyViolations(body).violations].map((violation) => violation.message);
}

/** Section 2.4: this server writes the status of a policy naming its gateway whose generation it has not observed. */
export function statusDue(object: KubePolicy, gateway: string): boolean {
  return specOf(object.spec).gatewayRef.name === gateway && (object.metadata?.generation ?? 0) !== statusOf(object.status).observedGeneration;
}
