import type { Violation } from './errors.js';
import { labelKeyProblem, labelValueProblem, subdomainProblem } from './names.js';
import type { PolicySpec } from './schemas.js';
import { isJsonObject } from '../../core/json-object.js';

export const API_VERSION = 'toolyard.dev/v1alpha1';
export const KIND = 'AIPolicy';

/** What a create body (or the merged result of a patch) sets; the rest is maintained by the server. */
export interface PolicyInput {
  name: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
  spec: PolicySpec;
}

/*
 * The members a policy body may carry, at every depth. `any` is not looked into (status is ignored),
 * `map` holds keys of the user's choosing.
 */
type Shape = 'leaf' | 'map' | 'any' | { items: Shape } | { [member: string]: Shape };
const SHAPE: Shape = {
  apiVersion: 'leaf',
  kind: 'leaf',
  metadata: {
    name: 'leaf',
    namespace: 'leaf',
    uid: 'leaf',
    resourceVersion: 'leaf',
    generation: 'leaf',
    creationTimestamp: 'leaf',
    deletionTimestamp: 'leaf',
    deletionGracePeriodSeconds: 'leaf',
    labels: 'map',
    annotations: 'map',
  },
  spec: {
    description: 'leaf',
    gatewayRef: { name: 'leaf' },
    mcpPolicy: { servers: 'leaf' },
    principalMatchers: { items: { claims: 'map' } },
  },
  status: 'any',
};

const ANNOTATIONS_LIMIT = 256 * 1024;

/** The 400s of a body (section 2): unknown members at any depth, one violation each, and a wrong apiVersion or kind. */
export function shapeViolations(body: Record<string, unknown>): Violation[] {
  const violations: Violation[] = [];
  const walk = (value: unknown, shape: Shape, path: string) => {
    if (shape === 'leaf' || shape === 'map' || shape === 'any') return;
    if ('items' in shape) {
      const { items } = shape;
      if (Array.isArray(value)) value.forEach((item, index) => walk(item, items, `${path}[${String(index)}]`));
      return;
    }
    if (!isJsonObject(value)) return;
    const members = shape as Record<string, Shape>;
    for (const [key, item] of Object.entries(value)) {
      const field = path === '' ? key : `${path}.${key}`;
      const inner = members[key];
      if (inner === undefined) violations.push({ field, message: `unknown field "${field}"` });
      else walk(item, inner, field);
    }
  };
  walk(body, SHAPE, '');
  if (body.apiVersion !== undefined && body.apiVersion !== null && body.apiVersion !== API_VERSION) {
    violations.push({ field: 'apiVersion', message: `apiVersion must be ${API_VERSION}` });
  }
  if (body.kind !== undefined && body.kind !== null && body.kind !== KIND) violations.push({ field: 'kind', message: `kind must be ${KIND}` });
  return violations;
}

const typeName = (value: unknown) => (value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value === 'object' ? 'an object' : `a ${typeof value}`);

/** The 422s of a body (sections 2 and 4): every broken rule, and the policy it describes when there is none. */
export function policyViolations(body: Record<string, unknown>): { violations: Violation[]; input?: PolicyInput } {
  const violations: Violation[] = [];
  const add = (field: string, message: string) => violations.push({ field, message });
  const objectAt = (value: unknown, field: string, required: boolean): Record<string, unknown> | undefined => {
    if (value === undefined || value === null) {
      if (required) add(field, `${field} is required`);
      return undefined;
    }
    if (!isJsonObject(value)) {
      add(field, `${field} must be an object, not ${typeName(value)}`);
      return undefined;
    }
    return value;
  };
  const stringAt = (value: unknown, field: string, required: boolean): string | undefined => {
    if (value === undefined || value === null) {
      if (required) add(field, `${field} is required`);
      return undefined;
    }
    if (typeof value !== 'string') {
      add(field, `${field} must be a string, not ${typeName(value)}`);
      return undefined;
    }
    return value;
  };
  const stringMap = (value: unknown, field: string): Record<string, string> | undefined => {
    const map = objectAt(value, field, false);
    // absent is empty; a wrong type was reported by objectAt
    if (!map) return value === undefined || value === null ? {} : undefined;
    const entries = Object.entries(map);
    const wrong = entries.find(([, item]) => typeof item !== 'string');
    if (wrong) {
      add(field, `${field}["${wrong[0]}"] must be a string, not ${typeName(wrong[1])}`);
      return undefined;
    }
    return map as Record<string, string>;
  };

  const metadata = objectAt(body.metadata, 'metadata', true);
  const name = stringAt(metadata?.name, 'metadata.name', true);
  if (name !== undefined) {
    const problem = subdomainProblem(name);
    if (problem) add('metadata.name', `metadata.name ${problem}`);
  }
  const labels = stringMap(metadata?.labels, 'metadata.labels');
  for (const [key, value] of Object.entries(labels ?? {})) {
    const keyProblem = labelKeyProblem(key);
    if (keyProblem) add('metadata.labels', `the label key "${key}" ${keyProblem}`);
    const valueProblem = labelValueProblem(value);
    if (valueProblem) add('metadata.labels', `the value of the label "${key}" ${valueProblem}`);
  }
  const annotations = stringMap(metadata?.annotations, 'metadata.annotations');
  let annotationBytes = 0;
  for (const [key, value] of Object.entries(annotations ?? {})) {
    const keyProblem = labelKeyProblem(key);
    if (keyProblem) add('metadata.annotations', `the annotation key "${key}" ${keyProblem}`);
    annotationBytes += Buffer.byteLength(key) + Buffer.byteLength(value);
  }
  if (annotationBytes > ANNOTATIONS_LIMIT) add('metadata.annotations', 'metadata.annotations must total at most 256 KiB (keys and values)');

  const spec = objectAt(body.spec, 'spec', true);
  const gatewayRef = spec ? objectAt(spec.gatewayRef, 'spec.gatewayRef', true) : undefined;
  const gatewayName = gatewayRef ? stringAt(gatewayRef.name, 'spec.gatewayRef.name', true) : undefined;
  if (gatewayName !== undefined) {
    const problem = subdomainProblem(gatewayName);
    if (problem) add('spec.gatewayRef.name', `spec.gatewayRef.name ${problem}`);
  }
  const description = stringAt(spec?.description, 'spec.description', false);
  if (description !== undefined && Array.from(description).length > 1024) add('spec.description', 'spec.description must be at most 1024 characters');
  const servers = checkServers(spec ? objectAt(spec.mcpPolicy, 'spec.mcpPolicy', false) : undefined, add);
  const matchers = checkMatchers(spec?.principalMatchers, spec !== undefined, add);

  if (violations.length > 0 || name === undefined || gatewayName === undefined || matchers === undefined) return { violations };
  const built: PolicySpec = { gatewayRef: { name: gatewayName }, principalMatchers: matchers };
  if (description !== undefined && description !== '') built.description = description;
  if (spec?.mcpPolicy !== undefined && spec.mcpPolicy !== null) built.mcpPolicy = servers && servers.length > 0 ? { servers } : {};
  return { violations, input: { name, labels: labels ?? {}, annotations: annotations ?? {}, spec: built } };
}

function checkServers(mcpPolicy: Record<string, unknown> | undefined, add: (field: string, message: string) => void): string[] | undefined {
  const value = mcpPolicy?.servers;
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) {
    add('spec.mcpPolicy.servers', `spec.mcpPolicy.servers must be an array, not ${typeName(value)}`);
    return undefined;
  }
  if (value.length > 256) add('spec.mcpPolicy.servers', 'spec.mcpPolicy.servers may hold at most 256 entries');
  const seen = new Set<string>();
  value.forEach((server, index) => {
    const field = `spec.mcpPolicy.servers[${String(index)}]`;
    if (typeof server !== 'string') add(field, `${field} must be a string, not ${typeName(server)}`);
    else if (server.length < 1 || server.length > 253) add(field, `${field} must be 1 to 253 characters: a connector name or "*"`);
    else if (seen.has(server)) add(field, `${field} repeats "${server}"`);
    else seen.add(server);
  });
  return value.filter((server): server is string => typeof server === 'string');
}

function checkMatchers(value: unknown, specPresent: boolean, add: (field: string, message: string) => void): { claims: Record<string, string> }[] | undefined {
  const field = 'spec.principalMatchers';
  if (value === undefined || value === null) {
    if (specPresent) add(field, `${field} is required (1 to 64 matchers)`);
    return undefined;
  }
  if (!Array.isArray(value)) {
    add(field, `${field} must be an array, not ${typeName(value)}`);
    return undefined;
  }
  if (value.length < 1 || value.length > 64) add(field, `${field} must hold 1 to 64 matchers`);
  const matchers: { claims: Record<string, string> }[] = [];
  value.forEach((matcher, index) => {
    const at = `${field}[${String(index)}]`;
    if (!isJsonObject(matcher)) return add(at, `${at} must be an object, not ${typeName(matcher)}`);
    const claims = matcher.claims;
    const claimsField = `${at}.claims`;
    if (claims === undefined || claims === null) return add(claimsField, `${claimsField} is required (1 to 32 entries)`);
    if (!isJsonObject(claims)) return add(claimsField, `${claimsField} must be an object, not ${typeName(claims)}`);
    const entries = Object.entries(claims);
    if (entries.length < 1 || entries.length > 32) add(claimsField, `${claimsField} must hold 1 to 32 entries`);
    for (const [key, claim] of entries) {
      if (key.length > 256) add(claimsField, `${claimsField}: the claim name "${key.slice(0, 32)}..." is longer than 256 characters`);
      if (typeof claim !== 'string') add(claimsField, `${claimsField}["${key}"] must be a string, not ${typeName(claim)}`);
      else if (claim.length < 1 || claim.length > 1024) add(claimsField, `${claimsField}["${key}"] must be 1 to 1024 characters`);
    }
    matchers.push({ claims: claims as Record<string, string> });
  });
  return matchers;
}
