import { dirname, isAbsolute, resolve } from 'node:path';
import { Type, type Static } from '@sinclair/typebox';
import { checkProviders, checkUrl, loggingSchema, providerSchema, roleSchema, telemetrySchema } from '../core/config/auth.js';
import { databaseConfigSchema } from '../core/config/database.js';
import { parseDuration } from '../core/config/duration.js';
import { loadConfig, readConfigFile } from '../core/config/load.js';
import { KubernetesSourceSchema } from '../core/kubernetes/schema.js';

const DNS_LABEL = '^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$';
/** A DNS-1123 subdomain: DNS-1123 labels joined by dots (the length limit, 253, is checked beside it). */
export const DNS_SUBDOMAIN = '^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$';
/** A connector gateway id (PLATFORM-API Part 4 §1). */
export const GATEWAY_ID = '^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$';

export const PLATFORM_ROLES = ['admin', 'auditor', 'directoryAdmin', 'connectorAdmin', 'billingAdmin', 'aiPolicyAdmin'] as const;
export type PlatformRole = (typeof PLATFORM_ROLES)[number];

const ProviderSchema = providerSchema({
  bindingClaim: Type.String({ minLength: 1, default: 'sub', description: "the token claim whose value is the directory user's external id for this issuer" }),
});

const OAuthSchema = Type.Object(
  {
    resourceUrl: Type.Optional(Type.String({ minLength: 1, description: 'the URL this platform is reached at (RFC 9728 resource, SCIM locations); default: the request\'s scheme and host' })),
    realm: Type.String({ default: 'toolyard-platform', description: 'realm in WWW-Authenticate' }),
    scopesSupported: Type.Array(Type.String(), { default: ['openid', 'profile', 'email', 'offline_access'], description: 'scopes listed in RFC 9728 metadata and discovery' }),
    providers: Type.Array(ProviderSchema, { minItems: 1, description: 'identity providers; a token from any one is accepted' }),
  },
  { additionalProperties: false, description: 'bearer token validation' },
);

const RolesSchema = Type.Object(
  {
    admin: roleSchema('every operation'),
    auditor: roleSchema('every read of the enterprise manager and AI gateway management, no write'),
    directoryAdmin: roleSchema('directory writes (groups, members)'),
    connectorAdmin: roleSchema('connectors, identity providers, managed secrets, connector policies'),
    billingAdmin: roleSchema('budgets, pricing, charges, usage events, spend export'),
    aiPolicyAdmin: roleSchema('AI policy writes'),
  },
  { default: {}, additionalProperties: false, description: 'roles as lists of claim maps' },
);

const ScimProvisionerSchema = Type.Object(
  {
    name: Type.String({ pattern: DNS_LABEL, description: 'a DNS label; the SCIM base URL is /scim/v2/<name>' }),
    provider: Type.Optional(Type.String({ minLength: 1, description: 'the auth.oauth.providers[].name whose users this provisioner manages (required in oauth mode)' })),
    bearerTokenFile: Type.String({ minLength: 1, description: 'file holding the bearer token the identity provider sends (never logged)' }),
    bindingAttribute: Type.Union([Type.Literal('externalId'), Type.Literal('userName')], {
      default: 'externalId',
      description: "the SCIM attribute that becomes the user's external id for the provider's issuer",
    }),
  },
  { additionalProperties: false },
);

export const LLM_WIRE_FORMATS = ['openai', 'anthropic', 'gemini'] as const;

const LlmProviderSchema = Type.Object(
  {
    name: Type.String({ minLength: 1, description: "the pricing catalog entries' provider this upstream serves (anthropic, openai, gemini, ...)" }),
    wireFormat: Type.Union(
      LLM_WIRE_FORMATS.map((format) => Type.Literal(format)),
      { description: 'the API the upstream speaks: anthropic (vendor_a entries), openai (vendor_b), gemini (vendor_c)' },
    ),
    baseUrl: Type.String({ minLength: 1, description: 'the upstream base URL as its SDK takes it, e.g. https://api.openai.com/v1, https://api.anthropic.com, https://generativelanguage.googleapis.com' }),
    apiKeyFile: Type.String({ minLength: 1, description: 'file holding the upstream API key (read at start, never logged)' }),
    openaiBaseUrl: Type.Optional(Type.String({ minLength: 1, description: "the provider's OpenAI-compatible base URL: its models are then served on /llm/v1/chat/completions too" })),
  },
  { additionalProperties: false },
);

const ModelLimitsSchema = Type.Object(
  {
    maxInputTokens: Type.Integer({ minimum: 1, description: 'the most input tokens the model takes' }),
    maxOutputTokens: Type.Integer({ minimum: 1, description: 'the most output tokens the model produces' }),
  },
  { additionalProperties: false },
);

export const PlatformConfigSchema = Type.Object(
  {
    server: Type.Object(
      {
        address: Type.String({ default: '127.0.0.1:8090', description: 'host:port the HTTP server listens on' }),
        publicUrl: Type.Optional(Type.String({ minLength: 1, description: 'the public base URL; default auth.oauth.resourceUrl, else the request\'s scheme and host' })),
        shutdownDelay: Type.String({
          default: '5s',
          description: 'on SIGTERM, how long /readiness answers 503 before the server stops accepting requests, so load balancers stop sending first',
        }),
      },
      { default: {}, additionalProperties: false, description: 'HTTP server' },
    ),
    database: databaseConfigSchema('./data/platform'),
    auth: Type.Object(
      {
        mode: Type.Union([Type.Literal('anonymous'), Type.Literal('oauth')], {
          default: 'oauth',
          description: 'oauth: bearer JWTs (the default); anonymous: every caller is the user "anonymous" holding every role (for trials)',
        }),
        oauth: Type.Optional(OAuthSchema),
        authz: Type.Object({ roles: RolesSchema }, { default: {}, additionalProperties: false, description: 'roles granted by token claims' }),
      },
      { default: {}, additionalProperties: false, description: 'authentication and authorization' },
    ),
    signing: Type.Optional(
      Type.Object(
        {
          keys: Type.Array(
            Type.Object(
              {
                kid: Type.String({ minLength: 1, maxLength: 128, description: 'the key id published in the JWKS and named in signatures' }),
                privateKeyFile: Type.String({ minLength: 1, description: 'EC P-256 private key, PKCS#8 PEM (never logged)' }),
              },
              { additionalProperties: false },
            ),
            { minItems: 1, description: 'the first key signs; the others are published for verification until retired' },
          ),
        },
        { additionalProperties: false, description: 'keys that sign configuration envelopes and usage checkpoints; without it those answer 503' },
      ),
    ),
    directory: Type.Object(
      {
        jitProvisioning: Type.Boolean({ default: true, description: 'a valid token with no directory user creates one (source jit)' }),
        scimProvisioners: Type.Array(ScimProvisionerSchema, { default: [], description: 'identity providers that provision users and groups through SCIM 2.0' }),
      },
      { default: {}, additionalProperties: false, description: 'the directory of users and groups' },
    ),
    clientConfiguration: Type.Object(
      {
        provider: Type.Optional(Type.String({ minLength: 1, description: 'the auth.oauth.providers[].name clients sign in with (default: the first)' })),
        clientId: Type.String({ default: '', description: 'the public (PKCE) OAuth client id clients use' }),
      },
      { default: {}, additionalProperties: false, description: 'what client configuration discovery tells clients' },
    ),
    pricing: Type.Object(
      {
        baseline: Type.Boolean({
          default: true,
          description: 'publish the built-in baseline catalog (from the LiteLLM price table) at start when it is newer; a pricing write opts out forever',
        }),
      },
      { default: {}, additionalProperties: false, description: 'the pricing catalog' },
    ),
    llmGateway: Type.Object(
      {
        providers: Type.Array(LlmProviderSchema, { default: [], description: 'upstream model providers; a catalog entry is served when its provider is named here' }),
        maxBodyBytes: Type.Integer({ minimum: 1024, default: 32 * 1024 * 1024, description: 'largest request body the LLM gateway accepts (413 above)' }),
        connectTimeout: Type.String({ default: '10s', description: 'how long connecting to an upstream may take (then 502 upstream_unavailable)' }),
        upstreamTimeout: Type.String({ default: '10m', description: 'how long a whole upstream exchange may take (504 upstream_timeout when no response headers came by then)' }),
        modelLimits: Type.Record(Type.String({ pattern: '^[^/]+/.+$' }), ModelLimitsSchema, {
          default: {},
          description: 'context limits per "<provider>/<model>", over the price table\'s; they bound reservations',
        }),
        defaultModelLimits: Type.Object(
          {
            maxInputTokens: Type.Integer({ minimum: 1, default: 1048576, description: 'input limit of a model no table knows' }),
            maxOutputTokens: Type.Integer({ minimum: 1, default: 65536, description: 'output limit of a model no table knows' }),
          },
          { default: {}, additionalProperties: false, description: 'limits of a model neither modelLimits nor the price table knows' },
        ),
      },
      { default: {}, additionalProperties: false, description: 'the LLM gateway (/llm): OpenAI, Anthropic and Gemini wire formats' },
    ),
    budgets: Type.Object(
      {
        enforcement: Type.Union([Type.Literal('hard'), Type.Literal('soft'), Type.Literal('off')], {
          default: 'hard',
          description: 'hard: refuse a request a budget cannot reserve; soft: admit it and count the overrun; off: reserve nothing (charges are written in every mode)',
        }),
        requireBudget: Type.Boolean({ default: false, description: 'under hard enforcement, refuse callers to whom no budget applies (403 no_budget)' }),
      },
      { default: {}, additionalProperties: false, description: 'budgets of users and groups' },
    ),
    usage: Type.Object(
      {
        retentionDays: Type.Integer({ minimum: 31, default: 90, description: 'charges and usage events older than this many days (today included) are deleted hourly and never returned' }),
      },
      { default: {}, additionalProperties: false, description: 'charge and usage records' },
    ),
    experiments: Type.Object(
      {
        spendExport: Type.Boolean({ default: false, description: 'serve GET /v1/spend/export (CSV); off: 404' }),
      },
      { default: {}, additionalProperties: false, description: 'features behind a flag' },
    ),
    secrets: Type.Object(
      {
        keyFile: Type.Optional(
          Type.String({
            minLength: 1,
            description:
              'file holding the base64 of 32 random bytes (openssl rand -base64 32) that encrypts managed secrets (AES-256-GCM); read at start, never logged. Missing or malformed: managed secret writes answer 503, everything else works',
          }),
        ),
      },
      { default: {}, additionalProperties: false, description: 'managed secrets (the values connectors and identity providers use)' },
    ),
    connectorGateway: Type.Object(
      {
        gateways: Type.Array(
          Type.Object(
            {
              id: Type.String({ pattern: GATEWAY_ID, description: 'a DNS label: in paths (/v1/gateways/<id>/connectors) and in the MCP endpoint /connector-gateway/v1/gateways/<id>/mcp' }),
              name: Type.String({ minLength: 1, maxLength: 128, description: 'the name people see' }),
            },
            { additionalProperties: false },
          ),
          { minItems: 1, default: [{ id: 'default', name: 'Default' }], description: 'the connector gateways, each with its own connectors and MCP endpoint' },
        ),
        environment: Type.String({
          minLength: 1,
          maxLength: 64,
          default: 'production',
          description: 'the environment this process serves (production, staging, ...): recorded on every tool call and given to connector policies as context.environment',
        }),
        discovery: Type.Optional({
          ...KubernetesSourceSchema,
          description:
            'the Kubernetes cluster whose annotated Services and custom resources are offered as discovered MCP servers (GET /v1/gateways/<id>/discovered-servers), and whose Secrets cluster_secret references name',
        }),
      },
      { default: {}, additionalProperties: false, description: 'the connector gateway: connectors offered to people through one MCP endpoint per gateway' },
    ),
    toolUsage: Type.Object(
      {
        checkpointEvery: Type.Integer({ minimum: 1, default: 100, description: 'a signed checkpoint covers the chain head at every this-many-th record' }),
        checkpointInterval: Type.String({ default: '60s', description: 'a chain head left unsigned this long is signed (duration: 30s, 5m)' }),
      },
      { default: {}, additionalProperties: false, description: 'tool-call usage records: their hash chains and signed checkpoints' },
    ),
    aiGateway: Type.Object(
      {
        gateway: Type.Object(
          {
            name: Type.String({ pattern: DNS_SUBDOMAIN, maxLength: 253, default: 'toolyard', description: 'the gateway this server manages: the spec.gatewayRef.name its AI policies name (GET /ai-gateway/v1/gateway)' }),
            namespace: Type.String({ pattern: DNS_LABEL, default: 'default', description: 'the namespace the AI policies live in (never in the paths)' }),
          },
          { default: {}, additionalProperties: false, description: 'the one gateway and namespace this server is bound to' },
        ),
        backend: Type.Union([Type.Literal('database'), Type.Literal('kubernetes')], {
          default: 'database',
          description: "where AI policies are kept: database (the platform's own database) or kubernetes (AIPolicy custom resources)",
        }),
        kubernetes: Type.Optional(
          Type.Object(
            { kubeconfig: Type.Optional(Type.String({ minLength: 1, description: 'kubeconfig file of the cluster; absent: the in-cluster service account' })) },
            { additionalProperties: false, description: 'the cluster of the kubernetes backend' },
          ),
        ),
        requirePolicy: Type.Boolean({ default: false, description: 'keep the gateway closed (deny by default) even when no AI policy names it' }),
        pageTokenTtl: Type.String({ default: '5m', description: 'how long a list pageToken stays valid (duration: 90s, 5m)' }),
        rateLimit: Type.Object(
          {
            requestsPerSecond: Type.Number({ minimum: 0, default: 20, description: 'tokens each caller (iss + sub) regains per second on each replica; 0 turns the limit off' }),
            burst: Type.Integer({ minimum: 0, default: 100, description: 'the most tokens a caller holds at once on each replica; 0 turns the limit off' }),
          },
          { default: {}, additionalProperties: false, description: 'the per-caller token bucket of AI gateway management (429 when empty)' },
        ),
      },
      { default: {}, additionalProperties: false, description: 'AI gateway management (/ai-gateway/v1): AI policies, models, caller identity' },
    ),
    audit: Type.Object(
      {
        file: Type.Optional(Type.String({ minLength: 1, description: 'a JSON-lines copy of every audit record is appended here (mode 0600); the database keeps them all in any case' })),
      },
      { default: {}, additionalProperties: false, description: 'the audit trail of every write' },
    ),
    telemetry: telemetrySchema('toolyard-platform'),
    logging: loggingSchema(),
  },
  { additionalProperties: false },
);

export type PlatformConfig = Static<typeof PlatformConfigSchema>;
export type PlatformProviderConfig = Static<typeof ProviderSchema>;

export function checkPlatformConfig(config: PlatformConfig): string[] {
  const problems: string[] = [];
  const { auth } = config;
  const providerNames = new Set(auth.oauth?.providers.map((provider) => provider.name) ?? []);
  if (auth.mode === 'oauth') {
    if (!auth.oauth) problems.push('auth.oauth: required when auth.mode is oauth (the default); set auth.mode: anonymous to run without authentication');
    else {
      if (auth.oauth.resourceUrl !== undefined) problems.push(...checkUrl('auth.oauth.resourceUrl', auth.oauth.resourceUrl, 'any'));
      problems.push(...checkProviders(auth.oauth.providers, 'auth.oauth.providers'));
    }
  }
  if (config.server.publicUrl !== undefined) problems.push(...checkUrl('server.publicUrl', config.server.publicUrl, 'any'));
  const provisioners = new Set<string>();
  config.directory.scimProvisioners.forEach((provisioner, index) => {
    const key = `directory.scimProvisioners[${index}]`;
    if (provisioners.has(provisioner.name)) problems.push(`${key}.name: "${provisioner.name}" is used by another provisioner`);
    provisioners.add(provisioner.name);
    if (auth.mode === 'oauth' && provisioner.provider === undefined) problems.push(`${key}.provider: required in oauth mode (name one of auth.oauth.providers)`);
    if (provisioner.provider !== undefined && auth.mode === 'oauth' && !providerNames.has(provisioner.provider)) {
      problems.push(`${key}.provider: no provider named "${provisioner.provider}" in auth.oauth.providers`);
    }
  });
  const chosen = config.clientConfiguration.provider;
  if (chosen !== undefined && auth.mode === 'oauth' && !providerNames.has(chosen)) problems.push(`clientConfiguration.provider: no provider named "${chosen}" in auth.oauth.providers`);
  const kids = new Set<string>();
  config.signing?.keys.forEach((key, index) => {
    if (kids.has(key.kid)) problems.push(`signing.keys[${index}].kid: "${key.kid}" is used by another key`);
    kids.add(key.kid);
  });
  const upstreams = new Set<string>();
  config.llmGateway.providers.forEach((provider, index) => {
    const key = `llmGateway.providers[${index}]`;
    if (upstreams.has(provider.name)) problems.push(`${key}.name: "${provider.name}" is used by another provider`);
    upstreams.add(provider.name);
    problems.push(...checkUrl(`${key}.baseUrl`, provider.baseUrl, 'any'));
    if (provider.openaiBaseUrl !== undefined) problems.push(...checkUrl(`${key}.openaiBaseUrl`, provider.openaiBaseUrl, 'any'));
  });
  const gateways = new Set<string>();
  config.connectorGateway.gateways.forEach((gateway, index) => {
    if (gateways.has(gateway.id)) problems.push(`connectorGateway.gateways[${index}].id: "${gateway.id}" is used by another gateway`);
    gateways.add(gateway.id);
  });
  for (const key of ['connectTimeout', 'upstreamTimeout'] as const) {
    const value = config.llmGateway[key];
    if (!parseDuration(value)) problems.push(`llmGateway.${key}: "${value}" is not a positive duration (examples: 10s, 5m, 1h30m)`);
  }
  if (!parseDuration(config.toolUsage.checkpointInterval)) problems.push(`toolUsage.checkpointInterval: "${config.toolUsage.checkpointInterval}" is not a positive duration (examples: 30s, 5m)`);
  if (!parseDuration(config.aiGateway.pageTokenTtl)) problems.push(`aiGateway.pageTokenTtl: "${config.aiGateway.pageTokenTtl}" is not a positive duration (examples: 90s, 5m)`);
  if (parseDuration(config.server.shutdownDelay) === undefined) problems.push(`server.shutdownDelay: "${config.server.shutdownDelay}" is not a duration (examples: 30s, 5m, 1h30m)`);
  if (config.telemetry.endpoint !== undefined && !/^https?:\/\/[^/]/.test(config.telemetry.endpoint)) problems.push(`telemetry.endpoint: "${config.telemetry.endpoint}" is not an http(s) URL`);
  return problems;
}

/** Validates a configuration given as a plain object (a parsed file, or a test's literal). */
export function parsePlatformConfig(document: Record<string, unknown>, env: Record<string, string | undefined> = {}): PlatformConfig {
  return loadConfig({ schema: PlatformConfigSchema, text: JSON.stringify(document), envPrefix: 'TOOLYARD_PLATFORM_', env, check: checkPlatformConfig });
}

export async function loadPlatformConfig(path: string | undefined, env: Record<string, string | undefined>): Promise<PlatformConfig> {
  const text = path === undefined ? undefined : await readConfigFile(path);
  const config = loadConfig({ schema: PlatformConfigSchema, text, origin: path ?? 'config', envPrefix: 'TOOLYARD_PLATFORM_', env, check: checkPlatformConfig });
  const url = env.TOOLYARD_DATABASE_URL;
  if (url && !env.TOOLYARD_PLATFORM_DATABASE_URL) config.database.url = url;
  return resolveFilePaths(config, path);
}

/** Files named by `*File` keys are relative to the configuration file, wherever the server is started. */
function resolveFilePaths<T>(config: T, configFile: string | undefined): T {
  if (configFile === undefined) return config;
  const base = dirname(resolve(configFile));
  const walk = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(walk);
    if (typeof value !== 'object' || value === null) return value;
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, /File$/.test(key) && typeof item === 'string' && !isAbsolute(item) ? resolve(base, item) : walk(item)]),
    );
  };
  return walk(config) as T;
}
