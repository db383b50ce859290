import { InvalidInputError } from '../../core/errors.js';
import { findPrivateAddress } from '../../core/net/address-guard.js';
import type { SecretReference } from '../secrets/index.js';
import type { Dcr, DcrInput, IdentityProviderBody, Oauth2Config, OidcConfig, SecretRef, SecretRefInput } from './schemas.js';

/** A provider body checked and filled in: the block to store and the managed secrets it names. */
export interface NormalizedProvider {
  config: Oauth2Config | OidcConfig;
  references: SecretReference[];
}

type Block = IdentityProviderBody['oauth2_config'] | IdentityProviderBody['oidc_config'];

const BLOCK_OF = { oauth2: 'oauth2_config', oidc: 'oidc_config' } as const;

function absoluteHttpUrl(field: string, value: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new InvalidInputError(`${field}: "${value}" is not an absolute URL (like https://idp.example.com/token)`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new InvalidInputError(`${field}: must be an http or https URL, not ${url.protocol}`);
  return url;
}

function secretRef(field: string, input: SecretRefInput | undefined, references: SecretReference[]): SecretRef | null {
  if (input === undefined) return null;
  const { cluster_secret: cluster, managed_secret_id: managed } = input;
  if ((cluster === undefined) === (managed === undefined)) throw new InvalidInputError(`${field}: set exactly one of cluster_secret or managed_secret_id`);
  if (managed !== undefined) references.push({ field, managedSecretId: managed });
  return { cluster_secret: cluster ?? null, managed_secret_id: managed ?? null };
}

function dcrOf(field: string, input: DcrInput | undefined, references: SecretReference[]): Dcr | null {
  if (input === undefined) return null;
  if (input.discovery_url !== undefined) absoluteHttpUrl(`${field}.discovery_url`, input.discovery_url);
  if (input.registration_endpoint !== undefined) absoluteHttpUrl(`${field}.registration_endpoint`, input.registration_endpoint);
  return {
    discovery_url: input.discovery_url ?? null,
    initial_access_token: secretRef(`${field}.initial_access_token`, input.initial_access_token, references),
    registration_endpoint: input.registration_endpoint ?? null,
    software_id: input.software_id ?? null,
    software_statement: input.software_statement ?? null,
  };
}

/** The fields both blocks share, with the client rules: a client id unless dcr, a secret iff the method sends one. */
function clientOf(block: string, input: NonNullable<Block>, references: SecretReference[]) {
  const clientSecret = secretRef(`${block}.client_secret`, input.client_secret, references);
  const dcr = dcrOf(`${block}.dcr`, input.dcr, references);
  if (input.client_id === undefined && dcr === null) throw new InvalidInputError(`${block}.client_id: is required unless a dcr block registers the client`);
  const method = input.token_endpoint_auth_method ?? (clientSecret !== null || dcr !== null ? 'client_secret_basic' : 'none');
  if (method === 'none' && clientSecret !== null) throw new InvalidInputError(`${block}.client_secret: not used when token_endpoint_auth_method is none; leave it out or choose client_secret_basic or client_secret_post`);
  if (method !== 'none' && clientSecret === null && dcr === null) {
    throw new InvalidInputError(`${block}.client_secret: is required when token_endpoint_auth_method is ${method} (or set token_endpoint_auth_method: none for a public client)`);
  }
  if (input.redirect_uri !== undefined) absoluteHttpUrl(`${block}.redirect_uri`, input.redirect_uri);
  return {
    client_id: input.client_id ?? null,
    client_secret: clientSecret,
    dcr,
    redirect_uri: input.redirect_uri ?? null,
    scopes: input.scopes ?? [],
    token_endpoint_auth_method: method,
  };
}

/** Unless allow_private_ips: the OIDC URLs the server itself fetches must not be or resolve to a private address. */
async function refusePrivate(config: OidcConfig): Promise<void> {
  if (config.allow_private_ips) return;
  const fetched: [string, string | null][] = [
    ['oidc_config.issuer_url', config.issuer_url],
    ['oidc_config.dcr.discovery_url', config.dcr?.discovery_url ?? null],
    ['oidc_config.dcr.registration_endpoint', config.dcr?.registration_endpoint ?? null],
  ];
  for (const [field, value] of fetched) {
    if (value === null) continue;
    const address = await findPrivateAddress(new URL(value).hostname);
    if (address !== undefined) throw new InvalidInputError(`${field}: ${value} is or resolves to the private address ${address}; set oidc_config.allow_private_ips: true to allow it`);
  }
}

/**
 * Checks a provider body beyond its schema (PLATFORM-API Part 4 §3): exactly the block of its type,
 * absolute http(s) URLs, the client rules, secret references, and the private-address rule of OIDC.
 */
export async function normalizeProvider(body: IdentityProviderBody): Promise<NormalizedProvider> {
  const own = BLOCK_OF[body.provider_type];
  const other = body.provider_type === 'oauth2' ? 'oidc_config' : 'oauth2_config';
  if (body[other] !== undefined) throw new InvalidInputError(`${other} is not allowed when provider_type is ${body.provider_type}; send ${own}`);
  const references: SecretReference[] = [];
  if (body.provider_type === 'oauth2') {
    const input = body.oauth2_config;
    if (input === undefined) throw new InvalidInputError(`oauth2_config: is required when provider_type is oauth2`);
    absoluteHttpUrl('oauth2_config.authorization_endpoint', input.authorization_endpoint);
    absoluteHttpUrl('oauth2_config.token_endpoint', input.token_endpoint);
    const config: Oauth2Config = { authorization_endpoint: input.authorization_endpoint, token_endpoint: input.token_endpoint, ...clientOf('oauth2_config', input, references) };
    if (config.dcr && config.dcr.discovery_url === null && config.dcr.registration_endpoint === null) {
      throw new InvalidInputError('oauth2_config.dcr: set registration_endpoint or discovery_url (an OAuth 2.0 provider has no issuer to discover it from)');
    }
    return { config, references };
  }
  const input = body.oidc_config;
  if (input === undefined) throw new InvalidInputError(`oidc_config: is required when provider_type is oidc`);
  absoluteHttpUrl('oidc_config.issuer_url', input.issuer_url);
  const config: OidcConfig = {
    additional_authorization_params: input.additional_authorization_params ?? {},
    allow_private_ips: input.allow_private_ips ?? false,
    issuer_url: input.issuer_url,
    subject_claim: input.subject_claim ?? 'sub',
    ...clientOf('oidc_config', input, references),
  };
  await refusePrivate(config);
  return { config, references };
}
