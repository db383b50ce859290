import { Type, type Static } from '@sinclair/typebox';
import { parseDuration } from '../core/config/duration.js';
import { BaseProviderSchema, checkProviders, checkUrl, loggingSchema, roleSchema, telemetrySchema } from '../core/config/auth.js';
import { databaseConfigSchema } from '../core/config/database.js';
import { loadConfig, readConfigFile } from '../core/config/load.js';
import { SourceDefinitionSchema, checkSourceDefinition } from './sources/definition.js';

const DNS_LABEL = '^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$';

export const ClaimsSchema = Type.Record(Type.String({ minLength: 1 }), Type.Union([Type.String(), Type.Array(Type.String())]), {
  description: 'claims: each key maps to a string or a list of strings',
});

const OAuthSchema = Type.Object(
  {
    resourceUrl: Type.String({ minLength: 1, description: 'the URL this registry is reached at; names it in RFC 9728 metadata' }),
    realm: Type.String({ default: 'mcp-registry', description: 'realm in WWW-Authenticate' }),
    scopesSupported: Type.Array(Type.String(), { default: ['mcp-registry:read', 'mcp-registry:write'], description: 'scopes listed in RFC 9728 metadata' }),
    publicPaths: Type.Array(Type.String({ pattern: '^/' }), { default: [], description: 'paths (and everything below them) served without a token' }),
    resourceDocumentation: Type.Optional(Type.String({ description: 'URL of documentation for people, listed in RFC 9728 metadata' })),
    providers: Type.Array(BaseProviderSchema, { minItems: 1, description: 'identity providers; a token from any one is accepted' }),
  },
  { additionalProperties: false, description: 'bearer token validation' },
);

const AuthzSchema = Type.Object(
  {
    roles: Type.Object(
      {
        superAdmin: roleSchema('everything, bypassing every claim check'),
        manageSources: roleSchema('create, update, delete and list sources'),
        manageRegistries: roleSchema('create, update and delete registries, and list their entries'),
        manageEntries: roleSchema('publish and delete entries and manage their claims'),
      },
      { default: {}, additionalProperties: false },
    ),
  },
  { additionalProperties: false, description: 'roles and claims-based authorization; without it a valid token is enough' },
);

const ConfigSourceSchema = Type.Composite(
  [Type.Object({ name: Type.String({ pattern: DNS_LABEL, description: 'unique source name, a DNS label' }) }), SourceDefinitionSchema],
  { additionalProperties: false },
);

const ConfigRegistrySchema = Type.Object(
  {
    name: Type.String({ pattern: DNS_LABEL, description: 'registry name, a DNS label, used in consumer paths' }),
    sources: Type.Array(Type.String(), { description: 'source names in order of precedence (first wins)', default: [] }),
    claims: Type.Optional(ClaimsSchema),
  },
  { additionalProperties: false },
);

export const GIT_SCHEMES = ['https', 'http', 'ssh', 'git', 'file'] as const;

const SourceAccessSchema = Type.Object(
  {
    filePaths: Type.Array(Type.String({ minLength: 1 }), {
      default: [],
      description: 'directories under which a file.path, a local git repository or a git.auth.passwordFile may be read (default: none; symbolic links are followed before the check)',
    }),
    privateNetworks: Type.Boolean({
      default: false,
      description: 'whether api endpoints, file URLs and git remotes may resolve to loopback, private (RFC 1918, unique-local) or link-local addresses, checked on every DNS answer and redirect',
    }),
    gitSchemes: Type.Array(Type.String({ minLength: 1 }), {
      default: ['https'],
      description: `URL schemes a git.repository may use, of ${GIT_SCHEMES.join(', ')} (default: https only; file also admits a local path, which must lie under filePaths)`,
    }),
  },
  { default: {}, additionalProperties: false, description: 'what sources created through the admin API may read (sources of this file are trusted)' },
);

export const RegistryConfigSchema = Type.Object(
  {
    server: Type.Object(
      {
        address: Type.String({ default: '127.0.0.1:8080', description: 'host:port the HTTP server listens on' }),
        shutdownDelay: Type.String({
          default: '5s',
          description: 'on SIGTERM, how long /readiness answers 503 before the server stops accepting requests, so load balancers stop sending first',
        }),
      },
      { default: {}, additionalProperties: false, description: 'HTTP server' },
    ),
    database: databaseConfigSchema('./data/registry', 'where the catalog is stored'),
    sources: Type.Array(ConfigSourceSchema, { default: [], description: 'catalog sources defined by this file (read-only through the API)' }),
    registries: Type.Array(ConfigRegistrySchema, { default: [], description: 'registries defined by this file (read-only through the API)' }),
    sourceAccess: SourceAccessSchema,
    auth: Type.Object(
      {
        mode: Type.Union([Type.Literal('anonymous'), Type.Literal('oauth')], {
          default: 'oauth',
          description: 'oauth: bearer JWTs (the default); anonymous: no authentication and no authorization',
        }),
        oauth: Type.Optional(OAuthSchema),
        authz: Type.Optional(AuthzSchema),
      },
      { default: {}, additionalProperties: false, description: 'authentication and authorization' },
    ),
    sync: Type.Object(
      {
        concurrency: Type.Integer({ minimum: 1, maximum: 64, default: 4, description: 'sources synced at once by this replica' }),
        leaseDuration: Type.String({ default: '30s', description: 'how long a sync claim lasts without renewal before another replica may take it over' }),
        pollInterval: Type.String({ default: '1s', description: 'how often this replica looks for due syncs and catalog changes' }),
      },
      { default: {}, additionalProperties: false, description: 'source synchronisation' },
    ),
    audit: Type.Object(
      {
        enabled: Type.Boolean({ default: false, description: 'write an audit record for every admin write, claims read or change, authentication failure and authorization denial' }),
        file: Type.Optional(Type.String({ minLength: 1, description: 'file the JSON-lines records are appended to (created with mode 0600); stdout when absent' })),
      },
      { default: {}, additionalProperties: false, description: 'the audit log: JSON lines, never holding tokens or secrets' },
    ),
    telemetry: telemetrySchema('toolyard-registry', 'OpenTelemetry traces of HTTP requests, SQL statements and syncs'),
    logging: loggingSchema(),
  },
  { additionalProperties: false },
);

export type RegistryConfig = Static<typeof RegistryConfigSchema>;
export type ConfigSource = Static<typeof ConfigSourceSchema>;

export function checkRegistryConfig(config: RegistryConfig): string[] {
  const problems: string[] = [];
  const sourceNames = new Map<string, number>();
  config.sources.forEach((source, index) => {
    const key = `sources[${index}]`;
    if (sourceNames.has(source.name)) problems.push(`${key}.name: "${source.name}" is already used by sources[${sourceNames.get(source.name)}]`);
    sourceNames.set(source.name, index);
    problems.push(...checkSourceDefinition(source, key));
    if (source.file?.data !== undefined) problems.push(`${key}.file.data: inline catalogs are accepted through the admin API only; point file.path or file.url at a catalog`);
  });
  const managed = config.sources.filter((s) => s.managed !== undefined);
  if (managed.length > 1) problems.push(`sources: at most one managed source is allowed (found ${managed.map((s) => s.name).join(', ')})`);
  const registryNames = new Set<string>();
  config.registries.forEach((registry, index) => {
    const key = `registries[${index}]`;
    if (registryNames.has(registry.name)) problems.push(`${key}.name: "${registry.name}" is defined twice`);
    registryNames.add(registry.name);
    const seen = new Set<string>();
    registry.sources.forEach((name, position) => {
      if (!sourceNames.has(name)) problems.push(`${key}.sources[${position}]: no source named "${name}" is defined in this file`);
      if (seen.has(name)) problems.push(`${key}.sources[${position}]: "${name}" is listed twice`);
      seen.add(name);
    });
  });
  problems.push(...checkAuth(config.auth));
  config.sourceAccess.gitSchemes.forEach((scheme, index) => {
    if (!(GIT_SCHEMES as readonly string[]).includes(scheme)) problems.push(`sourceAccess.gitSchemes[${index}]: "${scheme}" is not one of ${GIT_SCHEMES.join(', ')}`);
  });
  if (config.telemetry.endpoint !== undefined && !/^https?:\/\/[^/]/.test(config.telemetry.endpoint)) problems.push(`telemetry.endpoint: "${config.telemetry.endpoint}" is not an http(s) URL`);
  for (const [key, value] of [
    ['sync.leaseDuration', config.sync.leaseDuration],
    ['sync.pollInterval', config.sync.pollInterval],
    ['server.shutdownDelay', config.server.shutdownDelay],
  ] as const) {
    if (parseDuration(value) === undefined) problems.push(`${key}: "${value}" is not a duration (examples: 30s, 5m, 1h30m)`);
  }
  return problems;
}

function checkAuth(auth: RegistryConfig['auth']): string[] {
  if (auth.mode === 'anonymous') return [];
  if (!auth.oauth) return ['auth.oauth: required when auth.mode is oauth (the default); set auth.mode: anonymous to run without authentication'];
  return [...checkUrl('auth.oauth.resourceUrl', auth.oauth.resourceUrl, 'any'), ...checkProviders(auth.oauth.providers, 'auth.oauth.providers')];
}

/** Validates a configuration given as a plain object (a parsed file, or a test's literal). */
export function parseRegistryConfig(document: Record<string, unknown>, env: Record<string, string | undefined> = {}): RegistryConfig {
  return loadConfig({ schema: RegistryConfigSchema, text: JSON.stringify(document), envPrefix: 'TOOLYARD_REGISTRY_', env, check: checkRegistryConfig });
}

export async function loadRegistryConfig(path: string | undefined, env: Record<string, string | undefined>): Promise<RegistryConfig> {
  const text = path === undefined ? undefined : await readConfigFile(path);
  const config = loadConfig({
    schema: RegistryConfigSchema,
    text,
    origin: path ?? 'config',
    envPrefix: 'TOOLYARD_REGISTRY_',
    env,
    check: checkRegistryConfig,
  });
  const url = env.TOOLYARD_DATABASE_URL;
  if (url && !env.TOOLYARD_REGISTRY_DATABASE_URL) config.database.url = url;
  return config;
}
