import { createHash } from 'node:crypto';
import { decodeJwt, errors as joseErrors, jwtVerify, type JWTPayload } from 'jose';
import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import { createProviderClient, type ProviderClient, type ProviderConfig } from './provider-client.js';

/** Why a request is not authenticated; `code` is the RFC 6750 error of the WWW-Authenticate header. */
export class TokenError extends Error {
  constructor(
    readonly code: 'invalid_token' | 'invalid_request',
    message: string,
  ) {
    super(message);
    this.name = 'TokenError';
  }
}

export interface VerifiedToken {
  subject: string;
  claims: Record<string, unknown>;
  provider: string;
  /** Milliseconds since the epoch; the verification is cached until then. */
  expiresAt: number;
}

export interface TokenVerifier {
  verify(token: string): Promise<VerifiedToken>;
}

export interface TokenVerifierOptions {
  providers: ProviderConfig[];
  clock: Clock;
  logger: Logger;
  /** Verified tokens kept; the oldest is dropped first. */
  cacheSize?: number;
  /** Least time between two JWKS fetches caused by unknown key ids. */
  jwksCooldownMs?: number;
}

/** Only asymmetric algorithms: a shared-secret token could be forged by anyone who knows the secret. */
const ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'];
const CLOCK_SKEW_SECONDS = 30;

/**
 * Verifies bearer tokens against several providers: a JWT goes to the provider named by its `iss`;
 * an opaque token is introspected (RFC 7662) by the providers that have client credentials. Results
 * are cached by a hash of the token until the token expires, so verification is rarely on the hot path.
 */
export function createTokenVerifier(options: TokenVerifierOptions): TokenVerifier {
  const { clock, logger } = options;
  const cacheSize = options.cacheSize ?? 10_000;
  const clients = options.providers.map((config) => createProviderClient(config, { jwksCooldownMs: options.jwksCooldownMs ?? 30_000 }));
  // one issuer may be configured more than once (one entry per audience), so an issuer names a list
  const byIssuer = new Map<string, ProviderClient[]>();
  for (const client of clients) byIssuer.set(client.config.issuerUrl, [...(byIssuer.get(client.config.issuerUrl) ?? []), client]);
  const cache = new Map<string, VerifiedToken>();

  async function verifyJwt(token: string): Promise<VerifiedToken> {
    let unverified: JWTPayload;
    try {
      unverified = decodeJwt(token);
    } catch {
      throw new TokenError('invalid_token', 'the token is not a well-formed JWT');
    }
    const candidates = typeof unverified.iss === 'string' ? byIssuer.get(unverified.iss) ?? [] : [];
    const first = candidates[0];
    if (!first) throw new TokenError('invalid_token', 'the token was issued by an issuer this registry does not accept');
    // the unverified iss and aud only choose the providers to try; each checks both again with the signature
    const audiences = Array.isArray(unverified.aud) ? unverified.aud : [unverified.aud];
    const meant = candidates.filter((client) => audiences.includes(client.config.audience));
    let failure: unknown;
    for (const client of meant.length > 0 ? meant : [first]) {
      try {
        return await verifyWith(client, token);
      } catch (error) {
        failure ??= error;
      }
    }
    throw failure;
  }

  async function verifyWith(client: ProviderClient, token: string): Promise<VerifiedToken> {
    let keys;
    try {
      keys = await client.keys();
    } catch (error) {
      logger.warn({ provider: client.config.name, err: error }, 'cannot reach the identity provider');
      throw new TokenError('invalid_token', 'the token cannot be verified now: its identity provider is unreachable');
    }
    try {
      const { payload } = await jwtVerify(token, keys, {
        issuer: client.config.issuerUrl,
        audience: client.config.audience,
        algorithms: ALGORITHMS,
        clockTolerance: CLOCK_SKEW_SECONDS,
        currentDate: clock.now(),
        requiredClaims: ['exp'],
      });
      return { subject: typeof payload.sub === 'string' ? payload.sub : '', claims: payload, provider: client.config.name, expiresAt: (payload.exp ?? 0) * 1000 };
    } catch (error) {
      throw new TokenError('invalid_token', describeJoseError(error));
    }
  }

  async function introspect(token: string): Promise<VerifiedToken> {
    for (const client of clients) {
      const endpoint = await client.introspectionEndpoint().catch(() => undefined);
      const secret = client.clientSecret();
      if (!endpoint || !secret || !client.config.clientId) continue;
      const response = await client.fetch(endpoint, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          accept: 'application/json',
          authorization: `Basic ${Buffer.from(`${encodeURIComponent(client.config.clientId)}:${encodeURIComponent(secret)}`).toString('base64')}`,
        },
        body: new URLSearchParams({ token, token_type_hint: 'access_token' }).toString(),
      }).catch(() => undefined);
      if (!response?.ok) continue;
      const result = (await response.json()) as Record<string, unknown>;
      if (result.active !== true) continue;
      const audiences = Array.isArray(result.aud) ? result.aud : [result.aud];
      const now = clock.now().getTime() / 1000;
      if (!audiences.includes(client.config.audience)) continue;
      if (result.iss !== undefined && result.iss !== client.config.issuerUrl) continue;
      if (typeof result.exp !== 'number' || result.exp + CLOCK_SKEW_SECONDS <= now) continue;
      return { subject: typeof result.sub === 'string' ? result.sub : '', claims: result, provider: client.config.name, expiresAt: result.exp * 1000 };
    }
    throw new TokenError('invalid_token', 'the token is not a JWT and no identity provider recognises it');
  }

  return {
    async verify(token) {
      const key = createHash('sha256').update(token).digest('base64url');
      const cached = cache.get(key);
      const now = clock.now().getTime();
      if (cached && cached.expiresAt + CLOCK_SKEW_SECONDS * 1000 > now) return cached;
      if (cached) cache.delete(key);
      const verified = token.split('.').length === 3 ? await verifyJwt(token) : await introspect(token);
      if (cache.size >= cacheSize) cache.delete(cache.keys().next().value as string);
      cache.set(key, verified);
      return verified;
    },
  };
}

function describeJoseError(error: unknown): string {
  if (error instanceof joseErrors.JWTExpired) return 'the token has expired';
  if (error instanceof joseErrors.JWTClaimValidationFailed) {
    if (error.claim === 'aud') return 'the token is meant for another audience';
    if (error.claim === 'iss') return 'the token was issued by another issuer';
    if (error.claim === 'nbf') return 'the token is not valid yet';
    if (error.claim === 'exp') return 'the token has no expiry';
    return `the token's ${error.claim} claim is not acceptable`;
  }
  if (error instanceof joseErrors.JWKSNoMatchingKey) return 'the token is signed with a key its issuer does not publish';
  if (error instanceof joseErrors.JWSSignatureVerificationFailed) return 'the token signature is not valid';
  if (error instanceof joseErrors.JOSEAlgNotAllowed) return 'the token is signed with an algorithm this registry does not accept';
  return 'the token is not valid';
}
