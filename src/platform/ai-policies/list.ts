import type { StoredPolicy } from './backend.js';
import { badRequest } from './errors.js';
import type { PageTokens } from './page-token.js';
import { presentPolicy } from './present.js';
import type { AiPolicy } from './schemas.js';
import { matches, parseSelector, SelectorError } from './selector.js';
import { API_VERSION } from './validate.js';

export interface PolicyList {
  apiVersion: typeof API_VERSION;
  kind: 'AIPolicyList';
  items: AiPolicy[];
  nextPageToken: string;
  remainingItemCount?: number;
}

export interface ListContext {
  /** Every policy, sorted by name. */
  policies: readonly StoredPolicy[];
  tokens: PageTokens;
  now: number;
  ttlMs: number;
  namespace: string;
  /** The resource of a stored policy; the same object while that policy stands lets createListEncoder keep its bytes. */
  present?: (policy: StoredPolicy) => AiPolicy;
}

export const MAX_LIMIT = 500;

/** A query parameter as a string; empty counts as absent, a repeated one is refused. */
function parameter(query: Record<string, unknown>, name: string): string {
  const value = query[name];
  if (value === undefined) return '';
  if (typeof value !== 'string') throw badRequest(name, `${name} may be given once`);
  return value;
}

function limitOf(text: string): number {
  if (text === '') return MAX_LIMIT;
  if (!/^\d+$/.test(text) || /^0+$/.test(text)) throw badRequest('limit', `limit must be a whole number from 1 to ${String(MAX_LIMIT)}; got "${text}"`);
  return text.length > 3 ? MAX_LIMIT : Math.min(Number(text), MAX_LIMIT);
}

/** The first index whose name sorts after `name`. */
function indexAfter(policies: readonly StoredPolicy[], name: string): number {
  let low = 0;
  let high = policies.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((policies[middle]?.name ?? '') <= name) low = middle + 1;
    else high = middle;
  }
  return low;
}

/**
 * List (PLATFORM-API Part 5 §3): up to `limit` policies matching the selector after the token's position,
 * then those naming another gateway dropped; keyset paging, so a policy that exists throughout appears once.
 */
export function listPolicies(query: Record<string, unknown>, context: ListContext): PolicyList {
  const limit = limitOf(parameter(query, 'limit'));
  const labelSelector = parameter(query, 'labelSelector');
  const gatewayRef = parameter(query, 'gatewayRef');
  const pageToken = parameter(query, 'pageToken');
  let requirements;
  try {
    requirements = parseSelector(labelSelector);
  } catch (error) {
    if (!(error instanceof SelectorError)) throw error;
    throw badRequest('labelSelector', `labelSelector is not a valid Kubernetes label selector: ${error.message}`);
  }
  const { policies } = context;
  const start = pageToken === '' ? 0 : indexAfter(policies, context.tokens.decode(pageToken, { labelSelector, gatewayRef }, context.now).after);

  const page: StoredPolicy[] = [];
  let index = start;
  for (; index < policies.length && page.length < limit; index++) {
    const policy = policies[index] as StoredPolicy;
    if (matches(requirements, policy.labels)) page.push(policy);
  }
  let more = false;
  for (let rest = index; rest < policies.length && !more; rest++) more = matches(requirements, (policies[rest] as StoredPolicy).labels);

  const last = page.at(-1);
  const nextPageToken = more && last ? context.tokens.encode({ after: last.name, labelSelector, gatewayRef, expires: context.now + context.ttlMs }) : '';
  const present = context.present ?? ((policy: StoredPolicy) => presentPolicy(policy, context.namespace));
  const items = (gatewayRef === '' ? page : page.filter((policy) => policy.spec.gatewayRef.name === gatewayRef)).map(present);
  const unfiltered = labelSelector === '' && gatewayRef === '';
  return {
    apiVersion: API_VERSION,
    kind: 'AIPolicyList',
    items,
    nextPageToken,
    ...(nextPageToken !== '' && unfiltered && { remainingItemCount: policies.length - index }),
  };
}

const COMMA = Buffer.from(',');

/**
 * A list as its JSON bytes, each policy encoded once and kept while its presented object stands: encoding
 * up to 500 policies on every request was most of a list's time.
 */
export function createListEncoder(): (list: PolicyList) => Buffer {
  const encoded = new WeakMap<AiPolicy, Buffer>();
  const bytesOf = (policy: AiPolicy) => {
    let bytes = encoded.get(policy);
    if (!bytes) encoded.set(policy, (bytes = Buffer.from(JSON.stringify(policy))));
    return bytes;
  };
  return (list) => {
    const { apiVersion, kind, items, ...rest } = list;
    const parts: Buffer[] = [Buffer.from(`${JSON.stringify({ apiVersion, kind }).slice(0, -1)},"items":[`)];
    items.forEach((item, index) => {
      if (index > 0) parts.push(COMMA);
      parts.push(bytesOf(item));
    });
    parts.push(Buffer.from(`],${JSON.stringify(rest).slice(1)}`));
    return Buffer.concat(parts);
  };
}
