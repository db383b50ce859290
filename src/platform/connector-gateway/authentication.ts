import type { FastifyReply, FastifyRequest } from 'fastify';
import { TokenError, type VerifiedToken } from '../../core/auth/token-verifier.js';
import type { PlatformConfig } from '../config.js';
import type { CallerIdentities, CallerVerdict } from '../identity/callers.js';
import { KEY_REFUSALS, keyNamed, readCredential } from '../keys/gateway-auth.js';
import type { KeyVerifier } from '../keys/verifier.js';
import type { ConnectorCaller } from './tools.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the connector gateway's authentication step; null elsewhere. */
    connectorCaller: ConnectorCaller | null;
  }
}

export interface ConnectorGatewayAuthenticationOptions {
  config: PlatformConfig;
  verifier: KeyVerifier;
  identities: CallerIdentities;
  /** Absent in anonymous mode (no token is read). */
  verifyToken: ((token: string) => Promise<VerifiedToken>) | undefined;
}

/** The RFC 9728 metadata a 401 of this request points to. */
export type MetadataUrl = (request: FastifyRequest) => string;

export type AuthenticationHook = (request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply | undefined>;

/**
 * The connector gateway's authentication (PLATFORM-API Part 1 §2, Part 4 §7): a JWT of a configured
 * provider or a virtual key (`Authorization: Bearer`, `x-api-key`), resolved to an active directory
 * user; anything else is a 401 `{error}` whose challenge names the RFC 9728 metadata. In anonymous mode
 * a request without a key is the anonymous user's.
 */
export function createConnectorGatewayAuthentication(options: ConnectorGatewayAuthenticationOptions): (metadataUrl: MetadataUrl) => AuthenticationHook {
  const { config, verifier, identities, verifyToken } = options;
  const realm = config.auth.oauth?.realm ?? 'toolyard-platform';

  const refuse = (request: FastifyRequest, reply: FastifyReply, metadataUrl: MetadataUrl, message: string, invalidToken: boolean) => {
    const parts = [`realm="${realm}"`];
    if (invalidToken) parts.push('error="invalid_token"', `error_description="${message.replace(/["\\]/g, '')}"`);
    parts.push(`resource_metadata="${metadataUrl(request)}"`);
    request.log.info({ reason: message, url: request.url }, 'connector gateway authentication failed');
    return reply.code(401).header('www-authenticate', `Bearer ${parts.join(', ')}`).header('cache-control', 'no-store').send({ error: message });
  };

  return (metadataUrl) => async (request, reply) => {
    request.connectorCaller = null;
    const credential = readCredential(request, 'openai');
    let verdict: CallerVerdict;
    let token: string | null = null;
    if (credential?.kind === 'key') {
      const checked = verifier.verify(credential.value);
      if (!checked.ok) return refuse(request, reply, metadataUrl, KEY_REFUSALS[checked.code](keyNamed(credential.value)), true);
      verdict = await identities.resolve({ kind: 'key', key: checked.principal });
    } else if (!verifyToken) {
      verdict = await identities.anonymous();
    } else if (credential === undefined) {
      return refuse(request, reply, metadataUrl, 'authentication required: send Authorization: Bearer <token or virtual API key>, or x-api-key: <virtual API key>', false);
    } else {
      try {
        const verified = await verifyToken(credential.value);
        verdict = await identities.resolve({ kind: 'token', token: verified });
        token = credential.value;
      } catch (error) {
        if (!(error instanceof TokenError)) throw error;
        return refuse(request, reply, metadataUrl, `the token is not valid: ${error.message}`, true);
      }
    }
    if (!verdict.ok) return refuse(request, reply, metadataUrl, verdict.detail, false);
    request.connectorCaller = { user: verdict.caller, credential: { token, issuer: token === null ? null : verdict.caller.issuer } };
    return undefined;
  };
}
