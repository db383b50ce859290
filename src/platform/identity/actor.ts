import type { PlatformRole } from '../config.js';

/**
 * Who acts, as every platform service method receives it: the verified token (or the anonymous trial
 * user, or a SCIM provisioner), the roles its claims grant, and the request it came with (for the audit).
 */
export interface Actor {
  kind: 'anonymous' | 'user' | 'scim';
  /** The token's `iss`; null for the anonymous user, `scim:<name>` never (SCIM actors carry no token). */
  issuer: string | null;
  /** The token's `sub`; `anonymous`; or `scim:<provisioner>`. */
  subject: string;
  claims: Record<string, unknown>;
  /** The name of the configured provider that verified the token. */
  provider: string | null;
  roles: ReadonlySet<PlatformRole>;
  requestId: string | null;
}

export const ANONYMOUS_SUBJECT = 'anonymous';
