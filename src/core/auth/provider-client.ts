import { readFileSync } from 'node:fs';
import { Agent, fetch as undiciFetch, type Response as UndiciResponse } from 'undici';
import { createRemoteJWKSet, customFetch, type JWTVerifyGetKey } from 'jose';

export interface ProviderConfig {
  name: string;
  issuerUrl: string;
  audience: string;
  jwksUrl?: string | undefined;
  clientId?: string | undefined;
  clientSecretFile?: string | undefined;
  caCertPath?: string | undefined;
}

interface Discovery {
  jwksUri: string;
  introspectionEndpoint?: string;
}

export type ProviderFetch = (url: string, init?: { method?: string; headers?: Record<string, string>; body?: string }) => Promise<UndiciResponse>;

const TIMEOUT_MS = 5_000;

/**
 * Talks to one identity provider: OIDC discovery (once, retried after a failure), its JWKS (cached by
 * jose and fetched again only for an unknown key id, at most once per cool-down), and token
 * introspection. A provider with its own CA gets a connection pool that trusts it.
 */
export interface ProviderClient {
  config: ProviderConfig;
  keys(): Promise<JWTVerifyGetKey>;
  introspectionEndpoint(): Promise<string | undefined>;
  fetch: ProviderFetch;
  clientSecret(): string | undefined;
}

export function createProviderClient(config: ProviderConfig, options: { jwksCooldownMs: number }): ProviderClient {
  const dispatcher = config.caCertPath ? new Agent({ connect: { ca: readFileSync(config.caCertPath, 'utf8') } }) : undefined;
  const fetchFn: ProviderFetch = (url, init) =>
    undiciFetch(url, { ...init, signal: AbortSignal.timeout(TIMEOUT_MS), ...(dispatcher && { dispatcher }) });
  const secret = config.clientSecretFile ? readFileSync(config.clientSecretFile, 'utf8').trim() : undefined;
  let discovery: Promise<Discovery> | undefined;
  // one promise shared by every caller: requests arriving together before discovery has answered
  // would otherwise each build a key set of their own and each fetch the JWKS
  let jwks: Promise<JWTVerifyGetKey> | undefined;

  function discover(): Promise<Discovery> {
    discovery ??= (async () => {
      const url = `${config.issuerUrl.replace(/\/+$/, '')}/.well-known/openid-configuration`;
      const response = await fetchFn(url);
      if (!response.ok) throw new Error(`OIDC discovery at ${url} answered HTTP ${response.status}`);
      const document = (await response.json()) as { issuer?: unknown; jwks_uri?: unknown; introspection_endpoint?: unknown };
      if (document.issuer !== config.issuerUrl) throw new Error(`OIDC discovery at ${url} names issuer ${String(document.issuer)}, not ${config.issuerUrl}`);
      if (typeof document.jwks_uri !== 'string') throw new Error(`OIDC discovery at ${url} has no jwks_uri`);
      return {
        jwksUri: document.jwks_uri,
        ...(typeof document.introspection_endpoint === 'string' && { introspectionEndpoint: document.introspection_endpoint }),
      };
    })().catch((error: unknown) => {
      // the next request tries again instead of failing forever on a provider that was down at start
      discovery = undefined;
      throw error;
    });
    return discovery;
  }

  return {
    config,
    fetch: fetchFn,
    clientSecret: () => secret,
    keys() {
      jwks ??= (async () => {
        const uri = config.jwksUrl ?? (await discover()).jwksUri;
        return createRemoteJWKSet(new URL(uri), {
          cooldownDuration: options.jwksCooldownMs,
          timeoutDuration: TIMEOUT_MS,
          // undici's Response is the class behind Node's own fetch (another copy of it): jose reads it the same way
          // eslint-disable-next-line @typescript-eslint/no-unsafe-class-instance-assignment
          [customFetch]: (url: string, init: RequestInit) => fetchFn(url, { headers: init.headers as Record<string, string> }),
        });
      })().catch((error: unknown) => {
        // discovery failed: the next request tries again
        jwks = undefined;
        throw error;
      });
      return jwks;
    },
    async introspectionEndpoint() {
      if (!config.clientId) return undefined;
      return (await discover()).introspectionEndpoint;
    },
  };
}
