import type { FastifyReply, FastifyRequest } from 'fastify';
import { TokenError, type VerifiedToken } from '../../core/auth/token-verifier.js';
import { looksLikeSecret, prefixOf } from './secret.js';
import type { KeyPrincipal, KeyRefusal, KeyVerifier } from './verifier.js';

/** The wire format of an LLM gateway route: its error bodies are the ones that format's SDKs parse. */
export type WireFormat = 'openai' | 'anthropic' | 'gemini';

/** What the gateway authenticated: a virtual key, or a token (JWT compact form) of a configured provider. */
export type GatewayPrincipal = { kind: 'key'; key: KeyPrincipal } | { kind: 'token'; token: VerifiedToken };

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the gateway authentication step; null elsewhere. */
    gatewayPrincipal: GatewayPrincipal | null;
  }
}

export type Credential = { kind: 'token'; value: string } | { kind: 'key'; value: string };

export interface GatewayAuthenticationOptions {
  verifier: KeyVerifier;
  /** Verifies a bearer JWT; absent when the platform reads no tokens (then a JWT is an invalid key). */
  verifyToken?: ((token: string) => Promise<VerifiedToken>) | undefined;
}

export interface GatewayAuthentication {
  /** An onRequest hook for a route of this wire format: 401 in that format, or the request's principal set. */
  hook(format: WireFormat): (request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply | undefined>;
}

const JWT_COMPACT = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;
const BEARER = /^Bearer +(\S+)\s*$/i;

const single = (value: string | string[] | undefined): string | undefined => (Array.isArray(value) ? value[0] : value);

/**
 * The credential of a gateway request (PLATFORM-API Part 1 §2): `Authorization: Bearer`, `x-api-key`,
 * `x-goog-api-key`, or on the Gemini routes the `key` query parameter, in that order. A Bearer value
 * in JWT compact form is a token, any other a key secret.
 */
export function readCredential(request: FastifyRequest, format: WireFormat): Credential | undefined {
  const authorization = single(request.headers.authorization);
  const bearer = authorization === undefined ? undefined : BEARER.exec(authorization)?.[1];
  if (bearer !== undefined) return JWT_COMPACT.test(bearer) ? { kind: 'token', value: bearer } : { kind: 'key', value: bearer };
  const header = single(request.headers['x-api-key']) ?? single(request.headers['x-goog-api-key']);
  if (header) return { kind: 'key', value: header.trim() };
  if (format === 'gemini') {
    const key = (request.query as Record<string, unknown> | undefined)?.key;
    if (typeof key === 'string' && key !== '') return { kind: 'key', value: key };
  }
  return undefined;
}

/** Why a key was refused, naming it by its prefix (`key`), for every gateway. */
export const KEY_REFUSALS: Record<KeyRefusal, (key: string) => string> = {
  invalid_api_key: (key) => `the API key ${key} is not valid (not a key of this platform, or a secret rotated out)`,
  key_disabled: (key) => `the API key ${key} is disabled`,
  key_revoked: (key) => `the API key ${key} is revoked`,
  key_expired: (key) => `the API key ${key} has expired`,
  user_inactive: (key) => `the owner of the API key ${key} is inactive in the directory`,
};

/** A key secret as messages name it: its prefix (all a key's list shows), never other text that was sent. */
export const keyNamed = (secret: string): string => (looksLikeSecret(secret) ? `${prefixOf(secret)}…` : 'sent');

/** A 401 in the body the calling SDK understands (PLATFORM-API Part 3 §1.1). */
export function sendUnauthenticated(request: FastifyRequest, reply: FastifyReply, format: WireFormat, code: string, detail: string): FastifyReply {
  const message = `${code}: ${detail}`;
  void reply.code(401).header('cache-control', 'no-store');
  switch (format) {
    case 'openai':
      return reply.send({ error: { message, type: 'invalid_request_error', param: null, code } });
    case 'anthropic':
      return reply.send({ type: 'error', error: { type: 'authentication_error', message }, request_id: request.id });
    case 'gemini':
      return reply.send({
        error: { code: 401, message, status: 'UNAUTHENTICATED', details: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: code, domain: 'toolyard' }] },
      });
  }
}

/** The LLM gateway's authentication step (check 2 of its admission): a key checked in memory, or a token. */
export function createGatewayAuthentication(options: GatewayAuthenticationOptions): GatewayAuthentication {
  const { verifier, verifyToken } = options;
  return {
    hook(format) {
      return async (request, reply) => {
        request.gatewayPrincipal = null;
        const credential = readCredential(request, format);
        if (!credential) {
          return sendUnauthenticated(request, reply, format, 'invalid_api_key', 'no API key was sent: send Authorization: Bearer <key>, x-api-key or x-goog-api-key');
        }
        if (credential.kind === 'key') {
          const verdict = verifier.verify(credential.value);
          const named = keyNamed(credential.value);
          if (!verdict.ok) return sendUnauthenticated(request, reply, format, verdict.code, KEY_REFUSALS[verdict.code](named));
          request.gatewayPrincipal = { kind: 'key', key: verdict.principal };
          return;
        }
        if (!verifyToken) return sendUnauthenticated(request, reply, format, 'invalid_api_key', 'this platform reads no tokens: send a virtual API key');
        try {
          request.gatewayPrincipal = { kind: 'token', token: await verifyToken(credential.value) };
        } catch (error) {
          if (!(error instanceof TokenError)) throw error;
          return sendUnauthenticated(request, reply, format, 'invalid_api_key', `the token is not valid: ${error.message}`);
        }
      };
    },
  };
}
