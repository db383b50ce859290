import { CredentialError, type CredentialCaller, type CredentialConnector, type UpstreamCredentials } from './credentials.js';
import type { SecretValues } from './secret-values.js';
import type { ProviderIssuer } from './store.js';
import type { TokenExchanger } from './token-exchange.js';

const UNSUPPORTED: Record<string, string> = {
  obo: 'on-behalf-of (obo)',
  cloud_sts: 'cloud STS (cloud_sts)',
  xaa: 'cross-app access (xaa)',
};

/** Issuers are compared as URLs are written: one trailing slash makes no difference. */
const sameIssuer = (a: string, b: string) => a.replace(/\/$/, '') === b.replace(/\/$/, '');

/**
 * The credentials the connector gateway sends upstream (PLATFORM-API Part 4 §7 item 4). The auth types that
 * need a per-user consent or a cloud's own protocol are refused with a reason (the contract's 501 cases).
 */
export function createUpstreamCredentials(options: {
  /** The issuer of a connector identity provider, by id. */
  providerIssuer(id: string): Promise<ProviderIssuer | undefined>;
  values: SecretValues;
  exchanger: TokenExchanger;
}): UpstreamCredentials {
  const { values, exchanger } = options;

  /** Why the provider the connector names did not issue the caller's JWT, or undefined when it did. */
  async function issuerProblem(connector: CredentialConnector, caller: CredentialCaller, providerId: string): Promise<string | undefined> {
    const type = connector.auth.type;
    if (caller.token === null || caller.issuer === null) return `auth type ${type} needs the caller's JWT from the connector's identity provider; a virtual API key has none`;
    const provider = await options.providerIssuer(providerId);
    if (!provider) return `the connector's identity provider ${providerId} no longer exists`;
    if (provider.issuerUrl === null) return `auth type ${type} needs an OpenID identity provider with an issuer_url; "${provider.name}" is oauth2`;
    if (!sameIssuer(provider.issuerUrl, caller.issuer)) return `auth type ${type} needs a JWT issued by "${provider.name}" (${provider.issuerUrl}); the caller's token was issued by ${caller.issuer}, so the user must sign in with that provider`;
    return undefined;
  }

  async function servingProblem(connector: CredentialConnector, caller: CredentialCaller): Promise<string | undefined> {
    const { auth } = connector;
    const unsupported = UNSUPPORTED[auth.type];
    if (unsupported !== undefined) return `auth type ${unsupported} is not supported by this connector gateway`;
    if (auth.type === 'upstream_inject' && auth.upstream_inject) return issuerProblem(connector, caller, auth.upstream_inject.provider_id);
    if (auth.type === 'token_exchange' && auth.token_exchange?.provider_id) return issuerProblem(connector, caller, auth.token_exchange.provider_id);
    return undefined;
  }

  return {
    servingProblem,
    async headersFor(connector, caller) {
      const problem = await servingProblem(connector, caller);
      if (problem !== undefined) throw new CredentialError(problem);
      const { auth } = connector;
      switch (auth.type) {
        case 'header_injection': {
          const block = auth.header_injection;
          if (!block?.value) throw new CredentialError('auth.header_injection.value: the connector names no secret');
          return { [block.header_name]: await values.valueOf('auth.header_injection.value', block.value) };
        }
        case 'token_exchange': {
          const block = auth.token_exchange;
          if (!block) throw new CredentialError('auth.token_exchange: the connector has no token_exchange block');
          if (caller.token === null) throw new CredentialError("auth type token_exchange needs the caller's JWT; a virtual API key cannot be exchanged");
          const secretRef = block.client_secret;
          const token = await exchanger.exchange({
            connectorId: connector.id,
            block,
            allowPrivateIps: connector.allow_private_ips,
            subjectToken: caller.token,
            clientSecret: async () => (secretRef ? values.valueOf('auth.token_exchange.client_secret', secretRef) : undefined),
          });
          return block.external_token_header_name === null ? { authorization: `Bearer ${token}` } : { [block.external_token_header_name]: token };
        }
        case 'upstream_inject':
          // servingProblem made sure the caller has a JWT of the connector's provider
          return { authorization: `Bearer ${caller.token ?? ''}` };
        default:
          return {};
      }
    },
  };
}
