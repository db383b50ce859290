import { Type, type Static } from '@sinclair/typebox';
import { Nullable, Scopes, SecretRefInputSchema, Text, Url } from '../connector-idps/schemas.js';

/*
 * Connectors of a gateway (document "Connector"; PLATFORM-API Part 4 §2). Every field is always present in
 * responses (null, [] or {} when unset); secrets are written as references and never returned, not even
 * as references (only token_exchange.client_secret_configured).
 */

export const TRANSPORTS = ['streamable-http', 'sse'] as const;
export const ORIGINS = ['manual', 'kubernetes_cluster', 'registry'] as const;
export const STATUSES = ['verified', 'auth_required', 'unreachable'] as const;
export const AUTH_TYPES = ['none', 'header_injection', 'token_exchange', 'obo', 'cloud_sts', 'xaa', 'upstream_inject'] as const;
export type AuthType = (typeof AUTH_TYPES)[number];
export type AuthBlockName = Exclude<AuthType, 'none'>;
export const AUTH_BLOCKS: readonly AuthBlockName[] = ['cloud_sts', 'header_injection', 'obo', 'token_exchange', 'upstream_inject', 'xaa'];
export const SUBJECT_TOKEN_TYPES = ['access_token', 'id_token', 'jwt'] as const;

/** Fields the server sets: sending one is a 400 saying so. */
export const READ_ONLY_FIELDS = {
  id: 'set by the server',
  gateway_id: 'taken from the path',
  created_at: 'set by the server',
  updated_at: 'set by the server',
  status: 'set by the endpoint check',
  deployment_mode: 'kubernetes when origin is kubernetes_cluster, else proxy_remote',
} as const;

const Uuid = Type.String({ format: 'uuid' });
const Timestamp = Type.String({ format: 'date-time' });
const SubjectTokenType = Type.String({
  minLength: 1,
  maxLength: 128,
  description: 'access_token (default), id_token or jwt, or their RFC 8693 URNs (urn:ietf:params:oauth:token-type:...)',
});
const Secret = (description: string) => Type.Optional({ ...SecretRefInputSchema, description: `${description}: exactly one of cluster_secret or managed_secret_id; never returned` });
const ProviderId = Type.String({ format: 'uuid', description: 'a connector identity provider (/v1/connector-identity-providers)' });

// -- the auth blocks as written -----------------------------------------------------------------------

const HeaderInjectionInput = Type.Object(
  { header_name: Type.String({ minLength: 1, maxLength: 256, pattern: "^[!#$%&'*+.^_`|~0-9A-Za-z-]+$", description: 'the HTTP header sent upstream' }), value: SecretRefInputSchema },
  { additionalProperties: false },
);
const TokenExchangeInput = Type.Object(
  {
    audience: Type.Optional(Text('RFC 8693 audience')),
    client_id: Type.Optional(Text('client id at the token endpoint', 512)),
    client_secret: Secret('the client secret at the token endpoint'),
    external_token_header_name: Type.Optional(Text('header carrying the subject token instead of the caller\u2019s JWT', 256)),
    provider_id: Type.Optional(ProviderId),
    scopes: Type.Optional(Scopes),
    subject_token_type: Type.Optional(SubjectTokenType),
    token_url: Url('the RFC 8693 token endpoint'),
  },
  { additionalProperties: false },
);
const OboInput = Type.Object(
  {
    audience: Type.Optional(Text('the downstream API')),
    authority: Type.Optional(Url('the authority (login host)')),
    cache_skew: Type.Optional(Text('how long before expiry a cached token is renewed (a duration like 5m)', 32)),
    client_id: Text('the client id', 512),
    client_secret: Secret('the client secret'),
    provider_id: ProviderId,
    scopes: Type.Optional(Scopes),
    tenant_id: Text('the tenant', 256),
  },
  { additionalProperties: false },
);
const RoleMapping = Type.Object(
  { claim: Text('the claim', 256), matcher: Text('the value or pattern', 1024), priority: Type.Integer({ minimum: 0, maximum: 1_000_000 }), role_arn: Text('the role', 2048) },
  { additionalProperties: false },
);
const CloudStsInput = Type.Object(
  {
    fallback_role_arn: Type.Optional(Text('the role when no mapping matches', 2048)),
    provider_id: ProviderId,
    region: Text('the cloud region', 64),
    role_claim: Type.Optional(Text('the claim naming the role', 256)),
    role_mappings: Type.Optional(Type.Array(RoleMapping, { maxItems: 100 })),
    service: Type.Optional(Text('the service signed for', 128)),
    session_duration: Type.Optional(Type.Integer({ minimum: 1, maximum: 43_200, description: 'seconds' })),
    session_name_claim: Type.Optional(Text('the claim naming the session', 256)),
  },
  { additionalProperties: false },
);
const XaaInput = Type.Object(
  {
    idp_client_id: Type.Optional(Text('client id at the identity provider', 512)),
    idp_client_secret: Secret('client secret at the identity provider'),
    idp_token_url: Type.Optional(Url('the identity provider\u2019s token endpoint')),
    insecure_target_token_url: Type.Optional(Type.Boolean({ description: 'allow an http target token URL (default false)' })),
    provider_id: ProviderId,
    scopes: Type.Optional(Scopes),
    subject_token_type: Type.Optional(SubjectTokenType),
    target_audience: Type.Optional(Text('the target audience')),
    target_client_id: Type.Optional(Text('client id at the target', 512)),
    target_client_secret: Secret('client secret at the target'),
    target_resource: Type.Optional(Text('the target resource')),
    target_token_url: Type.Optional(Url('the target\u2019s token endpoint')),
  },
  { additionalProperties: false },
);
const UpstreamInjectInput = Type.Object({ provider_id: ProviderId }, { additionalProperties: false });

export const AuthInputSchema = Type.Object(
  {
    type: Type.Union(AUTH_TYPES.map((type) => Type.Literal(type))),
    cloud_sts: Type.Optional(CloudStsInput),
    header_injection: Type.Optional(HeaderInjectionInput),
    obo: Type.Optional(OboInput),
    token_exchange: Type.Optional(TokenExchangeInput),
    upstream_inject: Type.Optional(UpstreamInjectInput),
    xaa: Type.Optional(XaaInput),
  },
  { additionalProperties: false, description: 'exactly the block auth.type names (none: no block)' },
);
export type AuthInput = Static<typeof AuthInputSchema>;

export const ConnectorBodySchema = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 64, pattern: '^[^\\u0000-\\u001f\\u007f-\\u009f]*$', description: 'unique on the gateway ignoring case; its tool prefix must be too' }),
    endpoint: Url('the MCP endpoint'),
    transport: Type.Union(TRANSPORTS.map((transport) => Type.Literal(transport))),
    auth: AuthInputSchema,
    description: Type.Optional(Nullable(Text('what it offers', 4096))),
    version: Type.Optional(Nullable(Text('the server version', 128))),
    icon_url: Type.Optional(Nullable(Url('an icon'))),
    repository_url: Type.Optional(Nullable(Url('the source repository'))),
    support_url: Type.Optional(Nullable(Url('where to get help'))),
    allow_private_ips: Type.Optional(Type.Boolean({ description: 'allow an endpoint on a loopback, private, link-local or unspecified address (default false)' })),
    origin: Type.Optional(Type.Union(ORIGINS.map((origin) => Type.Literal(origin)), { description: 'manual (default); ignored on update' })),
    source_name: Type.Optional(Text('the Kubernetes service (iff origin is kubernetes_cluster); ignored on update', 253)),
    source_namespace: Type.Optional(Text('its namespace (iff origin is kubernetes_cluster); ignored on update', 63)),
  },
  { additionalProperties: false, description: 'the whole connector' },
);
export type ConnectorBody = Static<typeof ConnectorBodySchema>;

// -- the record -------------------------------------------------------------------------------------

const Str = Nullable(Type.String());
const AuthSchema = Type.Object(
  {
    type: Type.Union(AUTH_TYPES.map((type) => Type.Literal(type))),
    cloud_sts: Nullable(
      Type.Object(
        {
          fallback_role_arn: Str,
          provider_id: Type.String(),
          region: Type.String(),
          role_claim: Str,
          role_mappings: Type.Array(RoleMapping),
          service: Str,
          session_duration: Nullable(Type.Integer()),
          session_name_claim: Str,
        },
        { additionalProperties: false },
      ),
    ),
    header_injection: Nullable(Type.Object({ header_name: Type.String() }, { additionalProperties: false })),
    obo: Nullable(
      Type.Object(
        { audience: Str, authority: Str, cache_skew: Str, client_id: Type.String(), provider_id: Type.String(), scopes: Type.Array(Type.String()), tenant_id: Type.String() },
        { additionalProperties: false },
      ),
    ),
    token_exchange: Nullable(
      Type.Object(
        {
          audience: Str,
          client_id: Str,
          client_secret_configured: Type.Boolean(),
          external_token_header_name: Str,
          provider_id: Str,
          scopes: Type.Array(Type.String()),
          subject_token_type: Type.String(),
          token_url: Type.String(),
        },
        { additionalProperties: false },
      ),
    ),
    upstream_inject: Nullable(Type.Object({ provider_id: Type.String() }, { additionalProperties: false })),
    xaa: Nullable(
      Type.Object(
        {
          idp_client_id: Str,
          idp_token_url: Str,
          insecure_target_token_url: Type.Boolean(),
          provider_id: Type.String(),
          scopes: Type.Array(Type.String()),
          subject_token_type: Type.String(),
          target_audience: Str,
          target_client_id: Str,
          target_resource: Str,
          target_token_url: Str,
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);
export type Auth = Static<typeof AuthSchema>;

export const ConnectorSchema = Type.Object(
  {
    allow_private_ips: Type.Boolean(),
    auth: AuthSchema,
    created_at: Timestamp,
    deployment_mode: Type.Union([Type.Literal('kubernetes'), Type.Literal('proxy_remote')]),
    description: Str,
    endpoint: Type.String(),
    gateway_id: Type.String(),
    icon_url: Str,
    id: Uuid,
    name: Type.String(),
    origin: Type.Union(ORIGINS.map((origin) => Type.Literal(origin))),
    repository_url: Str,
    source_name: Str,
    source_namespace: Str,
    status: Type.Union(STATUSES.map((status) => Type.Literal(status))),
    support_url: Str,
    transport: Type.Union(TRANSPORTS.map((transport) => Type.Literal(transport))),
    updated_at: Timestamp,
    version: Str,
  },
  { $id: 'Connector', additionalProperties: false },
);
export type Connector = Static<typeof ConnectorSchema>;

export const ConnectorPageSchema = Type.Object(
  { items: Type.Array(Type.Ref('Connector')), next_cursor: Type.Optional(Type.String()), prev_cursor: Type.Optional(Type.String()) },
  { additionalProperties: false },
);

export const GatewayParamsSchema = Type.Object({ gateway_id: Type.String({ minLength: 1, maxLength: 63 }) }, { additionalProperties: false });
export const ConnectorParamsSchema = Type.Object({ gateway_id: Type.String({ minLength: 1, maxLength: 63 }), id: Uuid }, { additionalProperties: false });
