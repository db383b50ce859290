import { InvalidInputError } from '../../core/errors.js';
import { findPrivateAddress } from '../../core/net/address-guard.js';
import type { SecretRefInput } from '../connector-idps/schemas.js';
import type { SecretReference } from '../secrets/index.js';
import { AUTH_BLOCKS, SUBJECT_TOKEN_TYPES, type AuthInput, type ConnectorBody } from './schemas.js';
import type { StoredAuth } from './tables.js';

/** A connector body checked beyond its schema: what to store, and what it refers to. */
export interface NormalizedConnector {
  endpointKey: string;
  toolPrefix: string;
  auth: StoredAuth;
  /** The identity provider the auth block names, if any. */
  providerId: string | null;
  references: SecretReference[];
}

const URN = 'urn:ietf:params:oauth:token-type:';
const MAX_PREFIX = 32;

function absoluteHttpUrl(field: string, value: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new InvalidInputError(`${field}: "${value}" is not an absolute URL (like https://mcp.example.com/mcp)`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new InvalidInputError(`${field}: must be an http or https URL, not ${url.protocol}`);
  return url;
}

/** The tool prefix of a name (PLATFORM-API Part 4 §7 item 1): lower case, runs outside [a-z0-9-] as `_`, edges trimmed, ≤ 32. */
export function toolPrefixOf(name: string): string {
  const trim = (value: string) => value.replace(/^_+|_+$/g, '');
  return trim(trim(name.toLowerCase().replace(/[^a-z0-9-]+/g, '_')).slice(0, MAX_PREFIX));
}

/** The endpoint as uniqueness compares it: scheme and host lower-cased, default port dropped (what URL does), no fragment. */
export function endpointKeyOf(url: URL): string {
  const copy = new URL(url.href);
  copy.hash = '';
  return copy.href;
}

function subjectTokenType(field: string, value: string | undefined): string {
  if (value === undefined) return 'access_token';
  const short = value.startsWith(URN) ? value.slice(URN.length) : value;
  if (!(SUBJECT_TOKEN_TYPES as readonly string[]).includes(short)) {
    throw new InvalidInputError(`${field}: "${value}" is not one of access_token, id_token, jwt or their URNs (${URN}access_token, ...)`);
  }
  return short;
}

function secretRef(field: string, input: SecretRefInput | undefined, references: SecretReference[]) {
  if (input === undefined) return null;
  const { cluster_secret: cluster, managed_secret_id: managed } = input;
  if ((cluster === undefined) === (managed === undefined)) throw new InvalidInputError(`${field}: set exactly one of cluster_secret or managed_secret_id`);
  if (managed !== undefined) references.push({ field, managedSecretId: managed });
  return { cluster_secret: cluster ?? null, managed_secret_id: managed ?? null };
}

/** The auth union: exactly the block the type names, its URLs and secret references, defaults filled in. */
function normalizeAuth(auth: AuthInput, references: SecretReference[]): { stored: StoredAuth; providerId: string | null } {
  for (const block of AUTH_BLOCKS) {
    if (block !== auth.type && auth[block] !== undefined) throw new InvalidInputError(`auth.${block} is not allowed when auth.type is ${auth.type}`);
  }
  if (auth.type === 'none') return { stored: { type: 'none' }, providerId: null };
  const missing = () => new InvalidInputError(`auth.${auth.type}: is required when auth.type is ${auth.type}`);
  const url = (field: string, value: string | undefined) => {
    if (value !== undefined) absoluteHttpUrl(`auth.${field}`, value);
    return value ?? null;
  };
  switch (auth.type) {
    case 'header_injection': {
      const block = auth.header_injection ?? missingThrow(missing);
      return { stored: { type: 'header_injection', header_injection: { header_name: block.header_name, value: secretRef('auth.header_injection.value', block.value, references) } }, providerId: null };
    }
    case 'token_exchange': {
      const block = auth.token_exchange ?? missingThrow(missing);
      absoluteHttpUrl('auth.token_exchange.token_url', block.token_url);
      const stored = {
        audience: block.audience ?? null,
        client_id: block.client_id ?? null,
        client_secret: secretRef('auth.token_exchange.client_secret', block.client_secret, references),
        external_token_header_name: block.external_token_header_name ?? null,
        provider_id: block.provider_id ?? null,
        scopes: block.scopes ?? [],
        subject_token_type: subjectTokenType('auth.token_exchange.subject_token_type', block.subject_token_type),
        token_url: block.token_url,
      };
      return { stored: { type: 'token_exchange', token_exchange: stored }, providerId: stored.provider_id };
    }
    case 'obo': {
      const block = auth.obo ?? missingThrow(missing);
      const stored = {
        audience: block.audience ?? null,
        authority: url('obo.authority', block.authority),
        cache_skew: block.cache_skew ?? null,
        client_id: block.client_id,
        client_secret: secretRef('auth.obo.client_secret', block.client_secret, references),
        provider_id: block.provider_id,
        scopes: block.scopes ?? [],
        tenant_id: block.tenant_id,
      };
      return { stored: { type: 'obo', obo: stored }, providerId: stored.provider_id };
    }
    case 'cloud_sts': {
      const block = auth.cloud_sts ?? missingThrow(missing);
      const stored = {
        fallback_role_arn: block.fallback_role_arn ?? null,
        provider_id: block.provider_id,
        region: block.region,
        role_claim: block.role_claim ?? null,
        role_mappings: block.role_mappings ?? [],
        service: block.service ?? null,
        session_duration: block.session_duration ?? null,
        session_name_claim: block.session_name_claim ?? null,
      };
      return { stored: { type: 'cloud_sts', cloud_sts: stored }, providerId: stored.provider_id };
    }
    case 'xaa': {
      const block = auth.xaa ?? missingThrow(missing);
      const stored = {
        idp_client_id: block.idp_client_id ?? null,
        idp_client_secret: secretRef('auth.xaa.idp_client_secret', block.idp_client_secret, references),
        idp_token_url: url('xaa.idp_token_url', block.idp_token_url),
        insecure_target_token_url: block.insecure_target_token_url ?? false,
        provider_id: block.provider_id,
        scopes: block.scopes ?? [],
        subject_token_type: subjectTokenType('auth.xaa.subject_token_type', block.subject_token_type),
        target_audience: block.target_audience ?? null,
        target_client_id: block.target_client_id ?? null,
        target_client_secret: secretRef('auth.xaa.target_client_secret', block.target_client_secret, references),
        target_resource: block.target_resource ?? null,
        target_token_url: url('xaa.target_token_url', block.target_token_url),
      };
      if (stored.target_token_url?.startsWith('http:') && !stored.insecure_target_token_url) {
        throw new InvalidInputError('auth.xaa.target_token_url: an http URL needs auth.xaa.insecure_target_token_url: true');
      }
      return { stored: { type: 'xaa', xaa: stored }, providerId: stored.provider_id };
    }
    case 'upstream_inject': {
      const block = auth.upstream_inject ?? missingThrow(missing);
      return { stored: { type: 'upstream_inject', upstream_inject: { provider_id: block.provider_id } }, providerId: block.provider_id };
    }
  }
}

function missingThrow(error: () => Error): never {
  throw error();
}

/** The origin fields of a create: source_name and source_namespace iff the connector comes from a cluster. */
export function checkOrigin(body: ConnectorBody): void {
  const origin = body.origin ?? 'manual';
  for (const field of ['source_name', 'source_namespace'] as const) {
    if (origin === 'kubernetes_cluster' && body[field] === undefined) throw new InvalidInputError(`${field}: is required when origin is kubernetes_cluster`);
    if (origin !== 'kubernetes_cluster' && body[field] !== undefined) throw new InvalidInputError(`${field}: only for origin kubernetes_cluster (this body's origin is ${origin}); leave it out`);
  }
}

/**
 * Checks a connector body beyond its schema (PLATFORM-API Part 4 §2): URLs, the tool prefix, the auth union
 * and, unless allow_private_ips, that the endpoint is not and does not resolve to a private address.
 */
export async function normalizeConnector(body: ConnectorBody): Promise<NormalizedConnector> {
  const endpoint = absoluteHttpUrl('endpoint', body.endpoint);
  for (const field of ['icon_url', 'repository_url', 'support_url'] as const) {
    const value = body[field];
    if (value !== undefined && value !== null) absoluteHttpUrl(field, value);
  }
  const toolPrefix = toolPrefixOf(body.name);
  if (toolPrefix === '') throw new InvalidInputError(`name: "${body.name}" gives an empty tool prefix; use at least one letter, digit or hyphen`);
  const references: SecretReference[] = [];
  const { stored, providerId } = normalizeAuth(body.auth, references);
  if (body.allow_private_ips !== true) {
    const address = await findPrivateAddress(endpoint.hostname);
    if (address !== undefined) throw new InvalidInputError(`endpoint: ${body.endpoint} is or resolves to the private address ${address}; set allow_private_ips: true to allow it`);
  }
  return { endpointKey: endpointKeyOf(endpoint), toolPrefix, auth: stored, providerId, references };
}
