import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { ANONYMOUS } from '../../core/auth/caller.js';
import type { Clock } from '../../core/clock.js';
import type { HttpApp } from '../../core/http/app.js';
import type { RegistryConfig } from '../config.js';

/** Served without a token in every mode. */
export const ALWAYS_PUBLIC = ['/health', '/readiness', '/version', '/openapi.json', '/metrics', '/.well-known'];

const ProtectedResourceMetadata = Type.Object({
  resource: Type.String(),
  authorization_servers: Type.Array(Type.String()),
  scopes_supported: Type.Array(Type.String()),
  bearer_methods_supported: Type.Array(Type.String()),
  resource_documentation: Type.Optional(Type.String()),
});

export interface AuthenticationOptions {
  auth: RegistryConfig['auth'];
  clock: Clock;
  logger: Logger;
  /** Least time between JWKS fetches caused by unknown key ids (tests shorten it). */
  jwksCooldownMs?: number;
  /** Called for every 401 of the bearer check (the audit log); `reason` is a fixed text. */
  onFailure?(request: FastifyRequest, reason: string): void;
}

/**
 * Sets `request.caller` on every request: anonymous in anonymous mode and on public paths, else the
 * subject and claims of a verified bearer token (or a 401 challenge). Serves the RFC 9728 metadata.
 * Token verification (jose, undici) loads only in oauth mode.
 */
export async function registerAuthentication(app: HttpApp, options: AuthenticationOptions): Promise<void> {
  const { auth } = options;
  app.decorateRequest('caller', null as never);
  const oauth = auth.mode === 'oauth' ? auth.oauth : undefined;
  if (!oauth) {
    app.addHook('onRequest', (request, _reply, done) => {
      request.caller = ANONYMOUS;
      done();
    });
    return;
  }
  if (!auth.authz) options.logger.warn('auth-only mode: every valid token may read and change everything (add auth.authz to apply roles and claims)');
  const resource = oauth.resourceUrl.replace(/\/+$/, '');
  const metadataUrl = `${resource}/.well-known/oauth-protected-resource`;
  const [{ createPublicPathMatcher, registerBearerAuth }, { createTokenVerifier }] = await Promise.all([
    import('../../core/auth/bearer.js'),
    import('../../core/auth/token-verifier.js'),
  ]);
  registerBearerAuth(app, {
    verifier: createTokenVerifier({
      providers: oauth.providers,
      clock: options.clock,
      logger: options.logger,
      ...(options.jwksCooldownMs !== undefined && { jwksCooldownMs: options.jwksCooldownMs }),
    }),
    realm: oauth.realm,
    resourceMetadataUrl: metadataUrl,
    isPublic: createPublicPathMatcher([...ALWAYS_PUBLIC, ...oauth.publicPaths]),
    onFailure: (request, reason) => {
      request.log.info({ reason, url: request.url, ip: request.ip }, 'authentication failed');
      options.onFailure?.(request, reason);
    },
  });
  app.get(
    '/.well-known/oauth-protected-resource',
    { schema: { tags: ['public'], summary: 'OAuth protected resource metadata (RFC 9728)', response: { 200: ProtectedResourceMetadata } } },
    () => ({
      resource: oauth.resourceUrl,
      authorization_servers: oauth.providers.map((provider) => provider.issuerUrl),
      scopes_supported: oauth.scopesSupported,
      bearer_methods_supported: ['header'],
      ...(oauth.resourceDocumentation !== undefined && { resource_documentation: oauth.resourceDocumentation }),
    }),
  );
}
