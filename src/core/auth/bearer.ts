import type { FastifyReply, FastifyRequest } from 'fastify';
import type { HttpApp } from '../http/app.js';
import { ANONYMOUS } from './caller.js';
import { TokenError, type TokenVerifier } from './token-verifier.js';

export interface BearerAuthOptions {
  verifier: TokenVerifier;
  realm: string;
  /** URL of the RFC 9728 metadata, named in every challenge (a function when it depends on the request's host). */
  resourceMetadataUrl: string | ((request: FastifyRequest) => string);
  isPublic(rawUrl: string): boolean;
  /** Called for every refused request (audit, metrics). */
  onFailure?(request: FastifyRequest, reason: string): void;
  /** The 401 body for a request (default `{error: message}`), for route families whose error bodies differ. */
  errorBody?(request: FastifyRequest, message: string): unknown;
}

// RFC 6750 2.1: "Bearer" 1*SP b64token; the scheme name is case-insensitive (RFC 7235 2.1)
const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*)$/i;

/**
 * RFC 6750 bearer authentication for every non-public request: no credentials get a bare challenge,
 * a malformed header `invalid_request`, a token that fails verification `invalid_token`.
 */
export function registerBearerAuth(app: HttpApp, options: BearerAuthOptions): void {
  const metadataUrl = (request: FastifyRequest) => (typeof options.resourceMetadataUrl === 'string' ? options.resourceMetadataUrl : options.resourceMetadataUrl(request));
  const challenge = (request: FastifyRequest, error?: { code: string; description: string }) => {
    const parts = [`realm="${options.realm}"`];
    if (error) parts.push(`error="${error.code}"`, `error_description="${error.description.replace(/["\\]/g, '')}"`);
    parts.push(`resource_metadata="${metadataUrl(request)}"`);
    return `Bearer ${parts.join(', ')}`;
  };
  const refuse = (request: FastifyRequest, reply: FastifyReply, message: string, error?: { code: string; description: string }) => {
    options.onFailure?.(request, message);
    return reply.code(401).header('www-authenticate', challenge(request, error)).header('cache-control', 'no-store').send(options.errorBody?.(request, message) ?? { error: message });
  };

  app.addHook('onRequest', async (request, reply) => {
    if (options.isPublic(request.url)) {
      request.caller = ANONYMOUS;
      return;
    }
    const header = request.headers.authorization;
    if (header === undefined || header === '') return refuse(request, reply, 'authentication required: send Authorization: Bearer <token>');
    const match = BEARER.exec(header);
    if (!match?.[1]) {
      const description = 'the Authorization header must be "Bearer <token>"';
      return refuse(request, reply, description, { code: 'invalid_request', description });
    }
    try {
      const verified = await options.verifier.verify(match[1]);
      request.caller = { kind: 'user', subject: verified.subject, claims: verified.claims, provider: verified.provider };
    } catch (error) {
      if (!(error instanceof TokenError)) throw error;
      return refuse(request, reply, error.message, { code: error.code, description: error.message });
    }
  });
}

/**
 * Public paths match on whole segments (`/custom/public` covers `/custom/public/x`, not `/custom/publicity`);
 * `exactPaths` match only themselves. A path with dot segments or with encoded slashes, dots or backslashes is never
 * public, so no spelling of a protected path can pass as one.
 */
export function createPublicPathMatcher(prefixes: readonly string[], exactPaths: readonly string[] = []): (rawUrl: string) => boolean {
  const normalized = prefixes.map((prefix) => (prefix.length > 1 ? prefix.replace(/\/+$/, '') : prefix));
  return (rawUrl) => {
    const path = rawUrl.split('?')[0] ?? '';
    if (/%2f|%2e|%5c|\\/i.test(path)) return false;
    if (path.split('/').some((segment) => segment === '.' || segment === '..')) return false;
    const trimmed = path.length > 1 ? path.replace(/\/+$/, '') : path;
    if (exactPaths.includes(trimmed)) return true;
    return normalized.some((prefix) => trimmed === prefix || trimmed.startsWith(prefix === '/' ? '/' : `${prefix}/`));
  };
}
