import { Type, type Static, type TSchema } from '@sinclair/typebox';

/*
 * Connector identity providers (document "Connector identity provider"; PLATFORM-API Part 4 §3). Every
 * field is always present in responses: unset values are null, [] or {}. Secrets appear only as
 * references to a managed secret or a cluster secret.
 */

export const PROVIDER_TYPES = ['oauth2', 'oidc'] as const;
export const AUTH_METHODS = ['client_secret_basic', 'client_secret_post', 'none'] as const;
/** Fields the server sets: sending one is a 400 saying so. */
export const READ_ONLY_FIELDS = {
  id: 'set by the server',
  created_at: 'set by the server',
  updated_at: 'set by the server',
  registration_mode: 'dcr when a dcr block is set, else static',
  source: 'api for providers made through this API',
} as const;

const Uuid = Type.String({ format: 'uuid' });
const Timestamp = Type.String({ format: 'date-time' });
export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
export const Url = (description: string) => Type.String({ minLength: 1, maxLength: 2048, description: `${description}; an absolute http(s) URL` });
export const Text = (description: string, maxLength = 1024) => Type.String({ minLength: 1, maxLength, description });
const AuthMethod = Type.Union(
  AUTH_METHODS.map((method) => Type.Literal(method)),
  { description: 'how the client authenticates at the token endpoint; default client_secret_basic with a client secret or dcr, else none' },
);
export const Scopes = Type.Array(Type.String({ minLength: 1, maxLength: 256, pattern: '^[!#-\\[\\]-~]+$' }), { maxItems: 100, uniqueItems: true, description: 'scopes to ask for (RFC 6749 scope tokens)' });

// -- references to secrets ----------------------------------------------------------------------

const ClusterSecretSchema = Type.Object(
  {
    key: Type.String({ minLength: 1, maxLength: 253, pattern: '^[-._a-zA-Z0-9]+$', description: 'the key in the Secret' }),
    name: Type.String({ minLength: 1, maxLength: 253, pattern: '^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$', description: 'the Secret' }),
    namespace: Type.String({ minLength: 1, maxLength: 63, pattern: '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$', description: "the Secret's namespace" }),
  },
  { additionalProperties: false, description: 'a Kubernetes Secret of the discovery cluster, read at use time' },
);

export const SecretRefInputSchema = Type.Object(
  { cluster_secret: Type.Optional(ClusterSecretSchema), managed_secret_id: Type.Optional(Uuid) },
  { additionalProperties: false, description: 'exactly one of cluster_secret or managed_secret_id' },
);
export type SecretRefInput = Static<typeof SecretRefInputSchema>;

const SecretRefSchema = Type.Object(
  { cluster_secret: Nullable(ClusterSecretSchema), managed_secret_id: Nullable(Uuid) },
  { additionalProperties: false, description: 'a reference to the secret, never its value' },
);
export type SecretRef = Static<typeof SecretRefSchema>;

// -- dynamic client registration --------------------------------------------------------------

const DcrInputSchema = Type.Object(
  {
    discovery_url: Type.Optional(Url('metadata document (RFC 8414 / OpenID discovery) naming the registration endpoint')),
    initial_access_token: Type.Optional(SecretRefInputSchema),
    registration_endpoint: Type.Optional(Url('the RFC 7591 registration endpoint')),
    software_id: Type.Optional(Text('RFC 7591 software_id', 256)),
    software_statement: Type.Optional(Text('RFC 7591 software statement (a JWT)', 16384)),
  },
  { additionalProperties: false, description: 'register the client dynamically (RFC 7591) instead of a static client_id' },
);
export type DcrInput = Static<typeof DcrInputSchema>;

const DcrSchema = Type.Object(
  {
    discovery_url: Nullable(Type.String()),
    initial_access_token: Nullable(SecretRefSchema),
    registration_endpoint: Nullable(Type.String()),
    software_id: Nullable(Type.String()),
    software_statement: Nullable(Type.String()),
  },
  { additionalProperties: false },
);
export type Dcr = Static<typeof DcrSchema>;

// -- the two blocks ---------------------------------------------------------------------------------

const common = {
  client_id: Type.Optional(Text('the OAuth client id; required unless dcr registers the client', 512)),
  client_secret: Type.Optional(SecretRefInputSchema),
  dcr: Type.Optional(DcrInputSchema),
  redirect_uri: Type.Optional(Url('where the provider sends the user back')),
  scopes: Type.Optional(Scopes),
  token_endpoint_auth_method: Type.Optional(AuthMethod),
};

const Oauth2ConfigInputSchema = Type.Object(
  { authorization_endpoint: Url('the authorization endpoint'), token_endpoint: Url('the token endpoint'), ...common },
  { additionalProperties: false, description: 'required when provider_type is oauth2' },
);
export type Oauth2ConfigInput = Static<typeof Oauth2ConfigInputSchema>;

const OidcConfigInputSchema = Type.Object(
  {
    issuer_url: Url('the OpenID issuer (discovery at <issuer_url>/.well-known/openid-configuration)'),
    ...common,
    additional_authorization_params: Type.Optional(Type.Record(Type.String({ minLength: 1, maxLength: 128 }), Type.String({ maxLength: 1024 }), { description: 'extra parameters of the authorization request' })),
    allow_private_ips: Type.Optional(Type.Boolean({ description: 'allow issuer and registration URLs on loopback, private or link-local addresses (default false)' })),
    subject_claim: Type.Optional(Text('the ID token claim that identifies the user (default sub)', 128)),
  },
  { additionalProperties: false, description: 'required when provider_type is oidc' },
);
export type OidcConfigInput = Static<typeof OidcConfigInputSchema>;

export const IdentityProviderBodySchema = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 128, pattern: '^[^\\u0000-\\u001f\\u007f-\\u009f]*$', description: 'unique, ignoring case' }),
    provider_type: Type.Union(PROVIDER_TYPES.map((type) => Type.Literal(type))),
    oauth2_config: Type.Optional(Oauth2ConfigInputSchema),
    oidc_config: Type.Optional(OidcConfigInputSchema),
  },
  { additionalProperties: false, description: 'the whole provider: exactly the block its provider_type names' },
);
export type IdentityProviderBody = Static<typeof IdentityProviderBodySchema>;

const commonOut = {
  client_id: Nullable(Type.String()),
  client_secret: Nullable(SecretRefSchema),
  dcr: Nullable(DcrSchema),
  redirect_uri: Nullable(Type.String()),
  scopes: Type.Array(Type.String()),
  token_endpoint_auth_method: Type.Union(AUTH_METHODS.map((method) => Type.Literal(method))),
};

const Oauth2ConfigSchema = Type.Object({ authorization_endpoint: Type.String(), token_endpoint: Type.String(), ...commonOut }, { additionalProperties: false });
export type Oauth2Config = Static<typeof Oauth2ConfigSchema>;

const OidcConfigSchema = Type.Object(
  {
    additional_authorization_params: Type.Record(Type.String(), Type.String()),
    allow_private_ips: Type.Boolean(),
    issuer_url: Type.String(),
    subject_claim: Type.String(),
    ...commonOut,
  },
  { additionalProperties: false },
);
export type OidcConfig = Static<typeof OidcConfigSchema>;

export const IdentityProviderSchema = Type.Object(
  {
    created_at: Timestamp,
    id: Uuid,
    name: Type.String(),
    oauth2_config: Nullable(Oauth2ConfigSchema),
    oidc_config: Nullable(OidcConfigSchema),
    provider_type: Type.Union(PROVIDER_TYPES.map((type) => Type.Literal(type))),
    registration_mode: Type.Union([Type.Literal('static'), Type.Literal('dcr')]),
    source: Type.String({ description: '`api`' }),
    updated_at: Timestamp,
  },
  { $id: 'ConnectorIdentityProvider', additionalProperties: false },
);
export type IdentityProvider = Static<typeof IdentityProviderSchema>;

export const IdentityProviderPageSchema = Type.Object(
  { items: Type.Array(Type.Ref('ConnectorIdentityProvider')), next_cursor: Type.Optional(Type.String()), prev_cursor: Type.Optional(Type.String()) },
  { additionalProperties: false },
);

export const ProviderIdParamsSchema = Type.Object({ id: Uuid }, { additionalProperties: false });
