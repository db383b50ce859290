import type { Selectable } from 'kysely';
import type { ConnectorsTable } from '../connectors/tables.js';

/** Who calls through the connector gateway, as the credentials need it. */
export interface CredentialCaller {
  /** The caller's JWT (compact form) when it came with one; null for a virtual key. */
  token: string | null;
  /** The JWT's `iss`; null for a virtual key. */
  issuer: string | null;
}

/** `allow_private_ips` guards the outbound dials the credentials make (the token endpoint), as it guards the endpoint. */
export type CredentialConnector = Pick<Selectable<ConnectorsTable>, 'id' | 'auth' | 'provider_id' | 'allow_private_ips'>;

/** A credential that could not be obtained; its message names why (the gateway answers -32000 with it). */
export class CredentialError extends Error {
  override name = 'CredentialError';
}

/** The upstream credentials of each auth type (PLATFORM-API Part 4 §7 item 4). */
export interface UpstreamCredentials {
  /**
   * Why the connector cannot be served to this caller (the contract's 501 cases: `obo`, `cloud_sts`, `xaa`,
   * or `upstream_inject` / `token_exchange` with `provider_id` whose provider did not issue the caller's
   * JWT); undefined when it can be.
   */
  servingProblem(connector: CredentialConnector, caller: CredentialCaller): Promise<string | undefined>;
  /** The headers to send upstream for this caller; throws CredentialError naming the failure. */
  headersFor(connector: CredentialConnector, caller: CredentialCaller): Promise<Record<string, string>>;
}
