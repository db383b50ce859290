import { Type, type Static, type TSchema } from '@sinclair/typebox';

/*
 * The directives an administrator sets and the envelope clients fetch (PLATFORM-API Part 2 §4). Every
 * value schema is closed (an unknown key is a 400 naming it) and every object needs one member.
 */

const directive = <T extends TSchema>(value: T, description: string) =>
  Type.Object(
    {
      enforcement: Type.Union([Type.Literal('enforced'), Type.Literal('default')], { description: 'enforced: the user cannot change it; default: until the user sets their own' }),
      value,
    },
    { additionalProperties: false, description },
  );

const object = <P extends Record<string, TSchema>>(properties: P, description: string) =>
  Type.Object(properties, { additionalProperties: false, minProperties: 1, description });

const HttpsUrl = Type.String({ pattern: '^https://[^\\s]+$', description: 'an https URL' });
const HttpUrl = Type.String({ pattern: '^https?://[^\\s]+$', description: 'an http(s) URL' });
/** A map of strings with at least one entry, and keys of `keyPattern` only. */
const StringMap = (description: string, keyPattern = '^.+$') =>
  Type.Unsafe<Record<string, string>>({ type: 'object', patternProperties: { [keyPattern]: { type: 'string' } }, additionalProperties: false, minProperties: 1, description });
const GoDuration = Type.String({ pattern: '^([0-9]+(\\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$', description: 'a Go duration (90s, 5m, 1h30m)' });

export const DirectivesConfigSchema = Type.Object(
  {
    assistant: Type.Optional(directive(Type.Boolean(), 'the AI assistant is available')),
    help_menu: Type.Optional(directive(Type.Boolean(), 'the help menu is shown')),
    non_registry_servers: Type.Optional(directive(Type.Boolean(), 'MCP servers that are not in the registry may be run')),
    playground: Type.Optional(directive(Type.Boolean(), 'the playground is available')),
    ca_certificate: Type.Optional(
      directive(object({ pem: Type.Optional(Type.String({ minLength: 1, description: 'an X.509 certificate in PEM' })), url: Type.Optional(HttpsUrl) }, 'a CA certificate clients trust'), 'a CA certificate clients trust'),
    ),
    gateway: Type.Optional(directive(object({ api_url: Type.Optional(HttpUrl), proxy_url: Type.Optional(HttpUrl) }, 'the AI gateway'), 'the AI gateway clients use')),
    registry: Type.Optional(
      directive(
        object(
          {
            api_url: Type.Optional(HttpUrl),
            server_api_url: Type.Optional(HttpUrl),
            allow_private_ip: Type.Optional(Type.Boolean()),
          },
          'api_url: the MCP Registry API base (the runtime\'s api_url); server_api_url: the registry server base',
        ),
        'the registry clients use',
      ),
    ),
    telemetry: Type.Optional(
      directive(
        object(
          {
            otel_endpoint: Type.Optional(HttpUrl),
            headers: Type.Optional(StringMap('headers sent to the collector')),
            insecure: Type.Optional(Type.Boolean()),
            metrics_enabled: Type.Optional(Type.Boolean()),
            tracing_enabled: Type.Optional(Type.Boolean()),
            sampling_rate: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
          },
          'OpenTelemetry settings',
        ),
        'where clients send telemetry',
      ),
    ),
    build_env: Type.Optional(directive(StringMap('environment variables for builds', '^[A-Za-z_][A-Za-z0-9_]*$'), 'environment variables for builds')),
    degraded_mode: Type.Optional(
      directive(
        object(
          {
            policy: Type.Optional(Type.Union([Type.Literal('warn'), Type.Literal('block_new')], { description: 'after the grace period: warn, or also refuse to start new MCP servers' })),
            grace_period: Type.Optional(GoDuration),
            message: Type.Optional(Type.String({ maxLength: 1024 })),
          },
          'what clients do when the envelope cannot be refreshed',
        ),
        'what clients do when the envelope cannot be refreshed',
      ),
    ),
  },
  { additionalProperties: false, description: 'the directives set, each {enforcement, value}' },
);

export const DirectivesBodySchema = Type.Object(
  {
    config: DirectivesConfigSchema,
    refresh_interval: Type.Optional(Type.String({ description: 'how often clients refresh: 1m to 24h (default 1h)' })),
    validity: Type.Optional(Type.String({ description: 'how long an envelope is valid: 1h to 2160h and at least twice refresh_interval (default 168h)' })),
  },
  { additionalProperties: false },
);

export const DirectivesSchema = Type.Object(
  {
    config: DirectivesConfigSchema,
    refresh_interval: Type.String(),
    validity: Type.String(),
    updated_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'null until the first write' }),
  },
  { $id: 'Directives' },
);

export const EnvelopeSchema = Type.Object(
  {
    config: Type.Record(Type.String(), Type.Object({ enforcement: Type.String(), value: Type.Unknown() })),
    degraded_mode: Type.Object({ grace_period: Type.String(), message: Type.String(), policy: Type.String() }),
    etag: Type.String({ description: 'sha256:<hex> of the canonical (RFC 8785) envelope without etag and signature' }),
    issued_at: Type.String({ format: 'date-time' }),
    not_after: Type.String({ format: 'date-time' }),
    refresh_interval: Type.String(),
    schema_version: Type.String(),
    signature: Type.String({ description: 'detached JWS (RFC 7515 appendix F), ES256, over the canonical envelope without signature' }),
  },
  { $id: 'ConfigurationEnvelope' },
);

export const ProtectedResourceMetadataSchema = Type.Object({
  resource: Type.String(),
  authorization_servers: Type.Array(Type.String()),
  bearer_methods_supported: Type.Array(Type.String()),
  jwks_uri: Type.String(),
  scopes_supported: Type.Array(Type.String()),
});

export const DiscoverySchema = Type.Object({
  client_id: Type.String(),
  config_endpoint: Type.String(),
  issuer: Type.String(),
  jwks_uri: Type.String(),
  oauth_protected_resource: Type.String(),
  scopes_supported: Type.Array(Type.String()),
});

export type DirectivesConfig = Static<typeof DirectivesConfigSchema>;
export type DirectivesBody = Static<typeof DirectivesBodySchema>;
export type Directives = Static<typeof DirectivesSchema>;
