import type { FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { createPublicPathMatcher, registerBearerAuth } from '../../core/auth/bearer.js';
import { ANONYMOUS } from '../../core/auth/caller.js';
import { createTokenVerifier, type TokenVerifier } from '../../core/auth/token-verifier.js';
import type { Clock } from '../../core/clock.js';
import type { HttpApp } from '../../core/http/app.js';
import type { PlatformConfig } from '../config.js';

/**
 * Served without a token in every mode (SCIM checks its provisioners' own tokens; the LLM gateway takes
 * virtual keys as well as tokens, and checks both in its own authentication step; so does the connector gateway).
 */
const PUBLIC_PREFIXES = ['/health', '/readiness', '/version', '/metrics', '/openapi.json', '/api/doc', '/.well-known', '/scim', '/llm', '/connector-gateway'];
const PUBLIC_PATHS = ['/v1/configuration'];

export interface PlatformAuthenticationOptions {
  config: PlatformConfig;
  clock: Clock;
  logger: Logger;
  /** Least time between JWKS fetches caused by unknown key ids (tests shorten it). */
  jwksCooldownMs?: number;
  /** The 401 body of a request whose route family has its own error shape (undefined: `{error}`). */
  errorBody?: (request: FastifyRequest, message: string) => unknown;
}

/**
 * The public base URL of the service: `server.publicUrl`, else `auth.oauth.resourceUrl`, else the
 * request's own scheme and host.
 */
export function publicBaseUrl(config: PlatformConfig, request: FastifyRequest): string {
  const configured = config.server.publicUrl ?? config.auth.oauth?.resourceUrl;
  return (configured ?? `${request.protocol}://${request.host}`).replace(/\/+$/, '');
}

/**
 * Sets `request.caller`: anonymous in anonymous mode and on public paths, else the subject and
 * claims of a verified bearer JWT, or a 401 with `WWW-Authenticate: Bearer resource_metadata=...`.
 * Returns the token verifier (none in anonymous mode) for the steps that read tokens themselves.
 */
export function registerPlatformAuthentication(app: HttpApp, options: PlatformAuthenticationOptions): TokenVerifier | undefined {
  const { config } = options;
  app.decorateRequest('caller', null as never);
  const oauth = config.auth.mode === 'oauth' ? config.auth.oauth : undefined;
  if (!oauth) {
    app.addHook('onRequest', (request, _reply, done) => {
      request.caller = ANONYMOUS;
      done();
    });
    return undefined;
  }
  const verifier = createTokenVerifier({
    providers: oauth.providers,
    clock: options.clock,
    logger: options.logger,
    ...(options.jwksCooldownMs !== undefined && { jwksCooldownMs: options.jwksCooldownMs }),
  });
  registerBearerAuth(app, {
    verifier,
    realm: oauth.realm,
    resourceMetadataUrl: (request) => `${publicBaseUrl(config, request)}/.well-known/oauth-protected-resource`,
    isPublic: createPublicPathMatcher(PUBLIC_PREFIXES, PUBLIC_PATHS),
    onFailure: (request, reason) => request.log.info({ reason, url: request.url, ip: request.ip }, 'authentication failed'),
    ...(options.errorBody && { errorBody: options.errorBody }),
  });
  return verifier;
}
