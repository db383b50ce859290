import { Type, type Static } from '@sinclair/typebox';
import { EnvVarDeclaration } from '../registry/schemas.js';

/** Bumped when the saved run configuration changes shape; readers migrate older files forward. */
export const RUN_CONFIG_SCHEMA_VERSION = 'v1.0.0';

/**
 * What a workload gets when its body leaves these out; saved in the run configuration so that export
 * shows the values in force. Tool calls may run for minutes (long operations with progress).
 */
export const PROXY_DEFAULTS = { max_request_body_size: 4 * 1024 * 1024, proxy_read_timeout: '5m', session_ttl: '1h' } as const;

export const WORKLOAD_STATUSES = ['starting', 'running', 'stopping', 'stopped', 'removing', 'error', 'unhealthy'] as const;
export type WorkloadStatus = (typeof WORKLOAD_STATUSES)[number];

/**
 * Workload and group names. They name files and directories, so bodies, paths, query strings and the
 * CLI all check them with this one schema before anything touches the disk.
 */
export const Name = Type.String({
  minLength: 1,
  maxLength: 63,
  pattern: '^[a-zA-Z0-9][a-zA-Z0-9._-]*$',
  description: 'Letters, digits, dot, dash and underscore; starts with a letter or digit; at most 63 characters.',
});

const Duration = Type.String({ pattern: '^\\d+(ms|s|m|h)$', description: 'A duration such as 30s, 5m or 2h.' });

export const SecretRef = Type.Object(
  {
    name: Type.String({ minLength: 1, description: 'The secret key in the secrets provider.' }),
    target: Type.String({ minLength: 1, pattern: '^[A-Za-z_][A-Za-z0-9_]*$', description: 'The environment variable it becomes.' }),
  },
  { additionalProperties: false },
);
export type SecretRef = Static<typeof SecretRef>;

export const TokenBucket = Type.Object(
  {
    maxTokens: Type.Integer({ minimum: 1, description: 'Bucket size: calls allowed in a burst.' }),
    refillPeriod: Duration,
  },
  { additionalProperties: false },
);

export const RateLimitConfig = Type.Object(
  {
    shared: Type.Optional(TokenBucket),
    perUser: Type.Optional(TokenBucket),
    tools: Type.Optional(
      Type.Array(
        Type.Object(
          { name: Type.String({ minLength: 1 }), shared: Type.Optional(TokenBucket), perUser: Type.Optional(TokenBucket) },
          { additionalProperties: false },
        ),
      ),
    ),
  },
  { additionalProperties: false },
);
export type RateLimitConfig = Static<typeof RateLimitConfig>;

export const ToolOverride = Type.Object(
  { name: Type.Optional(Type.String({ minLength: 1 })), description: Type.Optional(Type.String()) },
  { additionalProperties: false },
);
export type ToolsOverride = Record<string, Static<typeof ToolOverride>>;

export const RuntimeConfig = Type.Object(
  {
    additional_packages: Type.Optional(Type.Array(Type.String())),
    build_with: Type.Optional(Type.Array(Type.String())),
    builder_image: Type.Optional(Type.String()),
    runtime_env: Type.Optional(Type.Record(Type.String(), Type.String())),
  },
  { additionalProperties: false },
);
export type RuntimeConfig = Static<typeof RuntimeConfig>;

export const HeaderForward = Type.Object(
  {
    add_plaintext_headers: Type.Optional(Type.Record(Type.String(), Type.String())),
    add_headers_from_secret: Type.Optional(Type.Record(Type.String(), Type.String(), { description: 'header name → secret key' })),
  },
  { additionalProperties: false },
);
export type HeaderForward = Static<typeof HeaderForward>;

const Transport = Type.Union([Type.Literal('stdio'), Type.Literal('streamable-http'), Type.Literal('sse')]);
export type Transport = Static<typeof Transport>;
const ProxyMode = Type.Union([Type.Literal('streamable-http'), Type.Literal('sse')]);
export type ProxyMode = Static<typeof ProxyMode>;

/** The create and edit body. Details return it as saved, so a UI can GET, change and send it back. */
export const WorkloadRequest = Type.Object(
  {
    name: Type.Optional(Name),
    image: Type.Optional(Type.String({ description: 'npx://, uvx://, go:// or an OCI image reference.' })),
    url: Type.Optional(Type.String({ description: 'A remote MCP server (streamable-http or sse).' })),
    registry: Type.Optional(Type.String()),
    server: Type.Optional(Type.String()),
    cmd_arguments: Type.Optional(Type.Array(Type.String())),
    env_vars: Type.Optional(Type.Record(Type.String({ pattern: '^[A-Za-z_][A-Za-z0-9_]*$' }), Type.String())),
    secrets: Type.Optional(Type.Array(SecretRef)),
    headers: Type.Optional(Type.Array(Type.String())),
    header_forward: Type.Optional(HeaderForward),
    transport: Type.Optional(Transport),
    proxy_mode: Type.Optional(ProxyMode),
    proxy_port: Type.Optional(Type.Integer({ minimum: 1024, maximum: 65535 })),
    target_port: Type.Optional(Type.Integer({ minimum: 1024, maximum: 65535 })),
    host: Type.Optional(Type.String()),
    group: Type.Optional(Name),
    labels: Type.Optional(Type.Record(Type.String(), Type.String())),
    tools: Type.Optional(Type.Array(Type.String({ minLength: 1 }))),
    tools_override: Type.Optional(Type.Record(Type.String(), ToolOverride)),
    permission_profile: Type.Optional(Type.String()),
    network_isolation: Type.Optional(Type.Boolean()),
    allow_docker_gateway: Type.Optional(Type.Boolean()),
    volumes: Type.Optional(Type.Array(Type.String())),
    trust_proxy_headers: Type.Optional(Type.Boolean()),
    rate_limit_config: Type.Optional(RateLimitConfig),
    max_request_body_size: Type.Optional(Type.Integer({ minimum: 1, description: 'Largest MCP request body in bytes (413 above).' })),
    proxy_read_timeout: Type.Optional(Duration),
    session_ttl: Type.Optional(Duration),
    runtime_config: Type.Optional(RuntimeConfig),
    authz_config: Type.Optional(Type.Unknown()),
    oidc: Type.Optional(Type.Unknown()),
    oauth_config: Type.Optional(Type.Unknown()),
  },
  { additionalProperties: false },
);
export type WorkloadRequest = Static<typeof WorkloadRequest>;

/** Workload details: the create body as saved, with the name and group filled in. */
export const WorkloadDetails = Type.Object({ ...WorkloadRequest.properties, name: Type.String(), group: Type.String() });
export type WorkloadDetails = Static<typeof WorkloadDetails>;

export const CreatedWorkload = Type.Object({ name: Type.String(), port: Type.Integer() });
export type CreatedWorkload = Static<typeof CreatedWorkload>;

export const WorkloadSummary = Type.Object({
  name: Type.String(),
  package: Type.String(),
  url: Type.String(),
  port: Type.Integer(),
  transport_type: Type.String(),
  proxy_mode: Type.String(),
  status: Type.String(),
  status_context: Type.String(),
  created_at: Type.String(),
  started_at: Type.String(),
  labels: Type.Record(Type.String(), Type.String()),
  group: Type.String(),
  tools: Type.Array(Type.String()),
  remote: Type.Boolean(),
});
export type WorkloadSummary = Static<typeof WorkloadSummary>;

/**
 * The server process as resolved at create or update time, so the supervisor never resolves or
 * installs anything. The supervisor adds its allow-listed environment below `env`, and the workload's
 * `env_vars` and secrets above it.
 */
export const ServerCommand = Type.Object({
  command: Type.String(),
  /** Includes the workload's `cmd_args`. */
  args: Type.Array(Type.String()),
  cwd: Type.String(),
  /** What the package itself needs (a venv's VIRTUAL_ENV). */
  env: Type.Record(Type.String(), Type.String()),
});
export type ServerCommand = Static<typeof ServerCommand>;


/**
 * The parts of a catalog entry that shape a workload, kept in its run configuration
 * (`registry_entry`): edits resolve against the version that runs, and upgrade checks compare the
 * catalog's newest entry with it.
 */
export const RegistryEntry = Type.Object({
  registry: Type.String(),
  /** The entry's name in the catalog (the run configuration's registry_server_name). */
  server: Type.String(),
  version: Type.String(),
  remote: Type.Boolean(),
  /** npx://, uvx://, go:// or an OCI reference; empty for a remote server. */
  image: Type.String(),
  /** Empty for a server run here. */
  url: Type.String(),
  transport: Type.Union([Type.Literal('stdio'), Type.Literal('streamable-http'), Type.Literal('sse')]),
  args: Type.Array(Type.String()),
  env_vars: Type.Array(EnvVarDeclaration),
  /** Declared like env vars (a remote server's headers). */
  headers: Type.Array(EnvVarDeclaration),
  permissions: Type.Record(Type.String(), Type.Unknown()),
});
export type RegistryEntry = Static<typeof RegistryEntry>;

/**
 * What `export` returns and what the supervisor runs from: everything needed to start the workload
 * again, with secrets as references only.
 */
export const RunConfig = Type.Object({
  schema_version: Type.String(),
  name: Type.String(),
  group: Type.String(),
  image: Type.String({ description: 'The image as given (empty for a remote URL).' }),
  remote_url: Type.String(),
  registry_url: Type.String(),
  registry_server_name: Type.String(),
  cmd_args: Type.Array(Type.String()),
  env_vars: Type.Record(Type.String(), Type.String()),
  secrets: Type.Array(SecretRef),
  header_forward: HeaderForward,
  transport: Transport,
  proxy_mode: ProxyMode,
  host: Type.String(),
  port: Type.Integer(),
  target_port: Type.Integer(),
  labels: Type.Record(Type.String(), Type.String()),
  tools_filter: Type.Array(Type.String()),
  tools_override: Type.Record(Type.String(), ToolOverride),
  rate_limit_config: Type.Union([RateLimitConfig, Type.Null()]),
  max_request_body_size: Type.Integer(),
  proxy_read_timeout: Type.String(),
  session_ttl: Type.String(),
  runtime_config: Type.Union([RuntimeConfig, Type.Null()]),
  permission_profile_name_or_path: Type.String(),
  isolate_network: Type.Boolean(),
  trust_proxy_headers: Type.Boolean(),
  volumes: Type.Array(Type.String()),
  middleware_configs: Type.Array(Type.Object({ type: Type.String(), parameters: Type.Unknown() })),
  created_at: Type.String(),
  /** Absent for a remote URL. */
  command: Type.Optional(ServerCommand),
  /** The create body as saved (details). */
  request: WorkloadRequest,
});
export type RunConfig = Static<typeof RunConfig>;

/** A pid with its start time (from /proc), proving the pid still belongs to the process recorded. */
const ProcessRecord = Type.Object({ pid: Type.Integer({ minimum: 1 }), start_time: Type.String() });

/** What the supervisor records about a running workload (statuses/<name>.json). */
export const StatusRecord = Type.Object({
  status: Type.Union(WORKLOAD_STATUSES.map((status) => Type.Literal(status))),
  status_context: Type.String(),
  started_at: Type.String(),
  supervisor: Type.Optional(ProcessRecord),
  server: Type.Optional(ProcessRecord),
  restarts: Type.Integer({ minimum: 0 }),
  updated_at: Type.String(),
});
export type StatusRecord = Static<typeof StatusRecord>;

/** A group (groups/<name>.json): every workload belongs to one; clients are registered per group. */
export const Group = Type.Object({
  name: Name,
  registered_clients: Type.Array(Type.String(), { description: 'client apps configured with this group' }),
  skills: Type.Optional(Type.Array(Type.String(), { description: 'skills installed into this group' })),
  plugins: Type.Optional(Type.Array(Type.String(), { description: 'plugins installed into this group' })),
});
export type Group = Static<typeof Group>;

export const UPGRADE_STATUSES = ['up-to-date', 'upgrade-available', 'not-registry-sourced', 'server-not-found', 'unknown', 'upgraded'] as const;
export type UpgradeStatus = (typeof UPGRADE_STATUSES)[number];

const Permissions = Type.Record(Type.String(), Type.Unknown(), { description: "a catalog entry's permissions" });

export const UpgradeCheckResult = Type.Object(
  {
    workload_name: Type.String(),
    registry_server: Type.String({ description: 'the catalog entry the workload was made from; empty when it was not' }),
    current_image: Type.String({ description: 'what runs (a remote server: its url); for status upgraded, what ran before' }),
    candidate_image: Type.String({ description: "the catalog's newest entry; empty when there is none; for status upgraded, what runs now" }),
    status: Type.Union(UPGRADE_STATUSES.map((status) => Type.Literal(status))),
    reason: Type.String(),
    env_var_drift: Type.Object(
      { added: Type.Array(EnvVarDeclaration), removed: Type.Array(EnvVarDeclaration) },
      { description: "the candidate's env var declarations against those of the entry the workload was made from" },
    ),
    config_drift: Type.Object(
      {
        transport: Type.Optional(Type.Object({ from: Type.String(), to: Type.String() })),
        permission_profile: Type.Optional(Type.Object({ from: Permissions, to: Permissions })),
      },
      { description: 'only the settings that the upgrade changes' },
    ),
  },
  { description: 'An offline comparison of the workload with the newest catalog entry of its server' },
);
export type UpgradeCheckResult = Static<typeof UpgradeCheckResult>;

/**
 * The apply body: values for env vars the candidate newly requires. Secrets travel as references
 * `{name, target}` to the secrets store, never as values (spec rule 1).
 */
export const UpgradeOptions = Type.Object(
  {
    env: Type.Optional(WorkloadRequest.properties.env_vars),
    secrets: Type.Optional(Type.Array(SecretRef)),
  },
  { additionalProperties: false },
);
export type UpgradeOptions = Static<typeof UpgradeOptions>;
