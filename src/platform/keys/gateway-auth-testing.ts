import type { HttpApp } from '../../core/http/app.js';
import type { GatewayAuthentication, WireFormat } from './gateway-auth.js';

export const AUTH_ONLY_PATH = '/llm/auth-only';

/**
 * Routes that only authenticate, one per wire format (`/llm/auth-only/openai`, ...): they answer the
 * principal the gateway step set. The contract has no such route; tests and the benchmark add them.
 */
export function registerAuthOnlyRoutes(http: HttpApp, authentication: GatewayAuthentication): void {
  for (const format of ['openai', 'anthropic', 'gemini'] as const satisfies readonly WireFormat[]) {
    http.get(`${AUTH_ONLY_PATH}/${format}`, { onRequest: authentication.hook(format), schema: { hide: true } }, (request) => {
      const principal = request.gatewayPrincipal;
      if (principal?.kind === 'key') return { kind: 'key', key_id: principal.key.keyId, owner_user_id: principal.key.ownerUserId, subject: principal.key.subject };
      return { kind: 'token', subject: principal?.token.subject ?? null };
    });
  }
}
