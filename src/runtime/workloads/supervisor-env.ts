import { parseDuration } from '../../core/config/duration.js';
import { InvalidInputError } from '../../core/errors.js';
import type { StdioServerCommand } from '../proxy/stdio-child.js';
import { proxyUrl } from '../proxy/http-io.js';
import type { ProxyPolicy, ProxyTarget } from '../proxy/types.js';
import type { SecretReader } from '../secrets/environment.js';
import { PROXY_DEFAULTS, type RunConfig, type SecretRef } from './schemas.js';


/**
 * What a server inherits from the supervisor's own environment. Nothing else passes, so the secrets
 * of other workloads (which the supervisor may see in its environment) never reach this server.
 */
// Enough for a server to find its tools, locale, temp dir, certificates and proxy; nothing else of the user's environment leaks in.
const INHERITED = [
  'PATH', 'HOME', 'USER', 'LOGNAME', 'LANG', 'LC_ALL', 'LC_CTYPE', 'TZ', 'TMPDIR', 'TERM',
  'NODE_EXTRA_CA_CERTS', 'SSL_CERT_FILE', 'SSL_CERT_DIR',
  'HTTP_PROXY', 'HTTPS_PROXY', 'NO_PROXY', 'http_proxy', 'https_proxy', 'no_proxy',
];

/** The supervisor's plan for one workload, derived from its run configuration. */
export type SupervisedTarget =
  | { kind: 'remote'; proxy: ProxyTarget }
  | { kind: 'stdio'; command: StdioServerCommand }
  | { kind: 'local-http'; command: StdioServerCommand; port: number; proxy: ProxyTarget };

function durationMs(text: string, fallback: string): number {
  const ms = text === '' ? undefined : parseDuration(text);
  return ms === undefined || ms <= 0 ? (parseDuration(fallback) ?? 0) : ms;
}

export function proxyPolicy(config: RunConfig): ProxyPolicy {
  return {
    toolsFilter: config.tools_filter,
    toolsOverride: config.tools_override,
    rateLimit: config.rate_limit_config,
    maxBodyBytes: config.max_request_body_size > 0 ? config.max_request_body_size : PROXY_DEFAULTS.max_request_body_size,
    readTimeoutMs: durationMs(config.proxy_read_timeout, PROXY_DEFAULTS.proxy_read_timeout),
    sessionTtlMs: durationMs(config.session_ttl, PROXY_DEFAULTS.session_ttl),
  };
}

async function secretValue(secrets: SecretReader, key: string, usedFor: string): Promise<string> {
  const value = await secrets.get(key);
  if (value === undefined) throw new InvalidInputError(`secret "${key}" (for ${usedFor}) is not set`);
  return value;
}

async function secretEnvironment(refs: readonly SecretRef[], secrets: SecretReader): Promise<Record<string, string>> {
  const env: Record<string, string> = {};
  for (const ref of refs) env[ref.target] = await secretValue(secrets, ref.name, ref.target);
  return env;
}

async function remoteHeaders(config: RunConfig, secrets: SecretReader): Promise<Record<string, string>> {
  const headers: Record<string, string> = { ...config.header_forward.add_plaintext_headers };
  for (const [header, key] of Object.entries(config.header_forward.add_headers_from_secret ?? {})) {
    headers[header] = await secretValue(secrets, key, `header ${header}`);
  }
  return headers;
}

function inherited(env: Record<string, string | undefined>): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const key of INHERITED) {
    const value = env[key];
    if (value !== undefined) kept[key] = value;
  }
  return kept;
}

export interface ResolveTargetOptions {
  config: RunConfig;
  secrets: SecretReader;
  /** The supervisor's own environment. */
  env: Record<string, string | undefined>;
}

/**
 * Works out what to run and where the proxy points, resolving secret references on the way.
 * InvalidInputError names what is missing (a secret key, the server command, the target port).
 */
export async function resolveTarget({ config, secrets, env }: ResolveTargetOptions): Promise<SupervisedTarget> {
  if (config.remote_url !== '') {
    const transport = config.transport === 'sse' ? 'sse' : 'streamable-http';
    return { kind: 'remote', proxy: { kind: 'http', url: config.remote_url, transport, headers: await remoteHeaders(config, secrets) } };
  }
  const { command } = config;
  if (command === undefined) throw new InvalidInputError(`workload ${config.name} has no server command in its run configuration`);
  const secretEnv = await secretEnvironment(config.secrets, secrets);
  const baseEnv = { ...inherited(env), ...command.env, ...config.env_vars };
  const server = (extra: Record<string, string>): StdioServerCommand => ({
    command: command.command,
    args: command.args,
    env: { ...baseEnv, ...extra, ...secretEnv },
    ...(command.cwd === '' ? {} : { cwd: command.cwd }),
  });
  if (config.transport === 'stdio') return { kind: 'stdio', command: server({}) };

  const port = config.target_port;
  if (port <= 0) throw new InvalidInputError(`workload ${config.name} has no target_port for its ${config.transport} server`);
  const portText = String(port);
  const url = proxyUrl(port, '127.0.0.1', config.transport);
  return {
    kind: 'local-http',
    // The proxy points at this port, so it wins over anything the workload's env says.
    command: server({ PORT: portText, MCP_PORT: portText, MCP_HOST: '127.0.0.1' }),
    port,
    proxy: { kind: 'http', url, transport: config.transport },
  };
}
