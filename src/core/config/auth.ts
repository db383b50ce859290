import { Type, type Static, type TProperties } from '@sinclair/typebox';

/*
 * The pieces of an `auth` block that every service shares: identity providers, role claim maps and
 * the checks of their URLs. Each service adds the keys of its own (realm, roles, binding claims).
 */

export const ClaimMapSchema = Type.Record(Type.String({ minLength: 1 }), Type.Union([Type.String(), Type.Array(Type.String(), { minItems: 1 })]), {
  minProperties: 1,
  description: 'claims a caller must hold: every key must match; a list matches when the caller holds any one of its values',
});

export const roleSchema = (description: string) =>
  Type.Optional(Type.Array(ClaimMapSchema, { description: `${description}; granted when any one claim map matches` }));

const PROVIDER_PROPERTIES = {
  name: Type.String({ minLength: 1, description: 'the provider\'s name, for logs and references from other keys' }),
  issuerUrl: Type.String({ minLength: 1, description: 'the issuer: tokens must carry it as iss; https, or http on a loopback address' }),
  audience: Type.String({ minLength: 1, description: 'expected aud of tokens' }),
  jwksUrl: Type.Optional(Type.String({ minLength: 1, description: 'JWKS URL; by default found through OIDC discovery from issuerUrl' })),
  clientId: Type.Optional(Type.String({ minLength: 1, description: 'client id for token introspection (RFC 7662) of opaque tokens' })),
  clientSecretFile: Type.Optional(Type.String({ minLength: 1, description: 'file holding the introspection client secret' })),
  caCertPath: Type.Optional(Type.String({ minLength: 1, description: "PEM file of the CA that signs the provider's TLS certificate" })),
};

/** An OpenID provider whose tokens are accepted, with the keys a service adds. */
export const providerSchema = <P extends TProperties>(extra: P) => Type.Object({ ...PROVIDER_PROPERTIES, ...extra }, { additionalProperties: false });

export const BaseProviderSchema = providerSchema({});
export type ProviderSettings = Static<typeof BaseProviderSchema>;

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/** `https`, or `http` on a loopback address when `rule` is secure; any http(s) URL when it is `any`. */
export function checkUrl(key: string, value: string, rule: 'secure' | 'any'): string[] {
  try {
    const parsed = new URL(value);
    if (parsed.protocol === 'https:' || (parsed.protocol === 'http:' && (rule === 'any' || LOOPBACK.has(parsed.hostname)))) return [];
    return [`${key}: must be an https URL (http is accepted on a loopback address only)`];
  } catch {
    return [`${key}: "${value}" is not a URL`];
  }
}

export function checkProviders(providers: readonly ProviderSettings[], key: string): string[] {
  const problems: string[] = [];
  const names = new Set<string>();
  providers.forEach((provider, index) => {
    const at = `${key}[${index}]`;
    if (names.has(provider.name)) problems.push(`${at}.name: "${provider.name}" is used by another provider`);
    names.add(provider.name);
    problems.push(...checkUrl(`${at}.issuerUrl`, provider.issuerUrl, 'secure'));
    if (provider.jwksUrl !== undefined) problems.push(...checkUrl(`${at}.jwksUrl`, provider.jwksUrl, 'secure'));
    if ((provider.clientId === undefined) !== (provider.clientSecretFile === undefined)) {
      problems.push(`${at}: clientId and clientSecretFile go together (both enable token introspection)`);
    }
  });
  return problems;
}

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

export const loggingSchema = () =>
  Type.Object(
    { level: Type.Union(LOG_LEVELS.map((level) => Type.Literal(level)), { default: 'info', description: 'log level' }) },
    { default: {}, additionalProperties: false, description: 'logging' },
  );

export const telemetrySchema = (serviceName: string, description = 'OpenTelemetry traces of HTTP requests and SQL statements') =>
  Type.Object(
    {
      endpoint: Type.Optional(
        Type.String({ minLength: 1, description: 'OTLP/HTTP collector URL (http://collector:4318, or the full .../v1/traces URL); traces are on only when it is set' }),
      ),
      serviceName: Type.String({ minLength: 1, default: serviceName, description: 'service.name of the exported traces' }),
    },
    { default: {}, additionalProperties: false, description },
  );
