import { isIP } from 'node:net';
import { basename } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { Value } from '@sinclair/typebox/value';
import { InvalidInputError } from '../../core/errors.js';
import { checkContainerRequest } from '../containers/settings.js';
import { goBinaryName } from '../packages/go.js';
import { isProtocolImage, parseProtocolImage, splitVersion } from '../packages/schemes.js';
import type { SecretReader } from '../secrets/environment.js';
import type { RegistryOrigin } from './registry-source.js';
import {
  Name,
  PROXY_DEFAULTS,
  RUN_CONFIG_SCHEMA_VERSION,
  WorkloadRequest,
  type ProxyMode,
  type RunConfig,
  type ServerCommand,
  type Transport,
} from './schemas.js';

export const DEFAULT_HOST = '127.0.0.1';

const NEEDS_ENGINE = 'needs a container engine: npx://, uvx:// and go:// servers run as local processes; give an OCI image to run the server in a container';

export type WorkloadSource = { kind: 'package'; image: string } | { kind: 'remote'; url: URL };

function checkOneSource(request: WorkloadRequest): void {
  const hasRegistry = request.registry !== undefined || request.server !== undefined;
  const given = [request.image !== undefined, request.url !== undefined, hasRegistry].filter(Boolean).length;
  if (given !== 1) throw new InvalidInputError('give exactly one of image, url, or registry with server');
}

/** The `{registry, server}` a body names, or undefined when it gives an image or a url. */
export function registryReferenceOf(request: WorkloadRequest): { registry: string; server: string } | undefined {
  checkOneSource(request);
  if (request.registry === undefined && request.server === undefined) return undefined;
  if (request.registry === undefined || request.server === undefined) throw new InvalidInputError('registry and server go together');
  if (request.server.trim() === '') throw new InvalidInputError('server is empty');
  return { registry: request.registry, server: request.server };
}

/**
 * Exactly one of image, url, or registry + server. A registry reference is made concrete first
 * (registry-source.ts); reaching here with one means no registry is configured.
 */
export function sourceOf(request: WorkloadRequest): WorkloadSource {
  if (registryReferenceOf(request) !== undefined) throw new InvalidInputError('registry references need a configured registry');
  if (request.image !== undefined) {
    if (request.image.trim() === '') throw new InvalidInputError('image is empty');
    return { kind: 'package', image: request.image };
  }
  let url: URL;
  try {
    url = new URL(request.url ?? '');
  } catch {
    throw new InvalidInputError(`url "${request.url ?? ''}" is not a valid URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new InvalidInputError('url must be an http or https URL');
  try {
    // the proxy decodes them into Basic credentials
    decodeURIComponent(url.username);
    decodeURIComponent(url.password);
  } catch {
    throw new InvalidInputError('url: the user name or password has a "%" that is not followed by two hex digits; write a literal "%" as %25');
  }
  return { kind: 'remote', url };
}

const NAME_MAX = 63;

/** A workload name from what it runs: `npx://@scope/pkg@1.2` → `pkg`, `https://api.example.com/mcp` → `api.example.com`. */
export function baseName(source: WorkloadSource): string {
  let raw: string;
  if (source.kind === 'remote') {
    raw = source.url.hostname;
  } else {
    const parsed = parseProtocolImage(source.image);
    const reference = parsed?.reference ?? source.image;
    if (parsed?.scheme === 'npx' && (reference.startsWith('/') || reference.startsWith('.'))) raw = basename(reference);
    else if (parsed?.scheme === 'go') raw = goBinaryName(splitVersion(reference).name);
    else if (parsed !== undefined) raw = splitVersion(reference).name.replace(/^@[^/]+\//, '').replace(/\[.*$/, '');
    else raw = (reference.split('/').at(-1) ?? reference).replace(/[:@].*$/, '');
  }
  const cleaned = raw.replace(/[^a-zA-Z0-9._-]+/g, '-').replace(/^[^a-zA-Z0-9]+/, '').slice(0, NAME_MAX - 4);
  return cleaned === '' ? 'workload' : cleaned;
}

/** `pkg`, then `pkg-2`, `pkg-3`, ... */
export function candidateName(base: string, attempt: number): string {
  return attempt === 1 ? base : `${base}-${String(attempt)}`;
}

function isEmpty(value: unknown): boolean {
  if (value === undefined || value === null || value === '') return true;
  if (Array.isArray(value)) return value.length === 0;
  return typeof value === 'object' && Object.keys(value).length === 0;
}

export const isName = (name: string): boolean => Value.Check(Name, name);

/** The Name schema's rule for names that reach the service without a route schema (the CLI, lists). */
export function checkName(name: string, field: string): void {
  if (isName(name)) return;
  const shown = name.length > 70 ? `${name.slice(0, 70)}…` : name;
  throw new InvalidInputError(`${field} "${shown}" is not a valid name: ${Name.description ?? ''}`);
}

export function checkSchema(request: WorkloadRequest): void {
  const first = Value.Errors(WorkloadRequest, request).First();
  if (first !== undefined) throw new InvalidInputError(`${first.path === '' ? 'body' : first.path}: ${first.message}`);
}

const isContainer = (source: WorkloadSource): boolean => source.kind === 'package' && !isProtocolImage(source.image);

/** Container settings that a process cannot honour, refused with the reason instead of being ignored. */
function checkProcessOnly(request: WorkloadRequest): void {
  if (!isEmpty(request.volumes)) throw new InvalidInputError(`volumes ${NEEDS_ENGINE}`);
  if (request.network_isolation === true) throw new InvalidInputError(`network_isolation ${NEEDS_ENGINE}`);
  if (request.allow_docker_gateway === true) throw new InvalidInputError(`allow_docker_gateway ${NEEDS_ENGINE}`);
  const profile = request.permission_profile;
  if (profile !== undefined && profile !== '' && profile !== 'none') {
    throw new InvalidInputError(`permission_profile "${profile}" ${NEEDS_ENGINE}; use "none" or leave it out`);
  }
}

/** Fields this runtime cannot honour for this source, refused with the reason instead of being ignored. */
function checkSupported(request: WorkloadRequest, source: WorkloadSource): void {
  if (isContainer(source)) checkContainerRequest(request, transportOf(request, source));
  else checkProcessOnly(request);
  for (const field of ['oidc', 'authz_config', 'oauth_config'] as const) {
    if (!isEmpty(request[field])) throw new InvalidInputError(`${field} is not supported yet by the local runtime`);
  }
  if (!isEmpty(request.runtime_config?.builder_image) || !isEmpty(request.runtime_config?.build_with)) {
    throw new InvalidInputError('runtime_config.builder_image and build_with are not supported: npx://, uvx:// and go:// packages are installed on this machine, not built in a container');
  }
  if (source.kind === 'remote') {
    if (!isEmpty(request.cmd_arguments)) throw new InvalidInputError('cmd_arguments apply to servers run here, not to a remote url');
    if (!isEmpty(request.env_vars)) throw new InvalidInputError('env_vars apply to servers run here, not to a remote url');
    if (request.transport === 'stdio') throw new InvalidInputError('a remote url speaks streamable-http or sse, not stdio');
    if (request.target_port !== undefined) throw new InvalidInputError('target_port applies to servers run here, not to a remote url');
  } else {
    if (!isEmpty(request.headers) || !isEmpty(request.header_forward)) {
      throw new InvalidInputError('headers and header_forward apply to remote url workloads only');
    }
    if (request.target_port !== undefined && (request.transport ?? 'stdio') === 'stdio') {
      throw new InvalidInputError('target_port applies to streamable-http and sse servers, not stdio');
    }
  }
}

/**
 * Spec rules 2 and 3: runtime_config belongs to protocol-scheme images. On update, anything else may
 * only echo back the saved value unchanged, with the same image and url.
 */
function checkRuntimeConfig(request: WorkloadRequest, source: WorkloadSource, saved: WorkloadRequest | undefined): void {
  if (request.runtime_config === undefined) return;
  if (source.kind === 'package' && isProtocolImage(source.image)) return;
  const inertEcho =
    saved !== undefined &&
    isDeepStrictEqual(request.runtime_config, saved.runtime_config) &&
    request.image === saved.image &&
    request.url === saved.url;
  if (inertEcho) return;
  throw new InvalidInputError(
    saved === undefined
      ? 'runtime_config is accepted only for npx://, uvx:// and go:// images'
      : 'runtime_config can change only for npx://, uvx:// and go:// images; for other workloads send back the saved value with the same image and url, or leave it out',
  );
}

const HEADER = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+)\s*:\s*(.*)$/;

function staticHeaders(headers: readonly string[] | undefined): Record<string, string> {
  const result: Record<string, string> = {};
  for (const header of headers ?? []) {
    const match = HEADER.exec(header);
    if (match?.[1] === undefined) throw new InvalidInputError(`header "${header.split(':')[0] ?? ''}" is not in the form "Name: value"`);
    result[match[1]] = match[2] ?? '';
  }
  return result;
}

const isLoopbackIp = (address: string): boolean => address === '::1' || (isIP(address) === 4 && address.startsWith('127.'));

/**
 * The proxy binds `host` when the workload starts, later and in another process, so it is checked
 * now: `localhost`, a loopback or any-address IP, or an IP of one of this machine's interfaces. A
 * host name is refused: it would be looked up in DNS at every start, and its answer can change.
 */
function checkHost(host: string | undefined, localAddresses: readonly string[]): void {
  if (host === undefined || host === '' || host === 'localhost') return;
  if (isIP(host) === 0) {
    throw new InvalidInputError(`host "${host}" must be an IP address of this machine (127.0.0.1, ::1, 0.0.0.0 for every interface) or localhost, not a host name`);
  }
  if (isLoopbackIp(host) || host === '0.0.0.0' || host === '::' || localAddresses.includes(host)) return;
  throw new InvalidInputError(`host ${host} is not an address of this machine, so the proxy could not listen on it`);
}

/** Every rule the schema cannot express; `saved` is the current request on update. */
export function validateRequest(request: WorkloadRequest, saved?: WorkloadRequest, localAddresses: readonly string[] = []): WorkloadSource {
  checkSchema(request);
  const source = sourceOf(request);
  checkRuntimeConfig(request, source, saved);
  checkSupported(request, source);
  checkHost(request.host, localAddresses);
  staticHeaders(request.headers);
  return source;
}

/** The secret keys (from `secrets` and headers from secrets) the reader does not know; never the values. */
export async function missingSecrets(request: WorkloadRequest, secrets: SecretReader): Promise<string[]> {
  const keys = new Set([
    ...(request.secrets ?? []).map((ref) => ref.name),
    ...Object.values(request.header_forward?.add_headers_from_secret ?? {}),
  ]);
  const missing: string[] = [];
  for (const key of keys) if ((await secrets.get(key)) === undefined) missing.push(key);
  return missing.sort();
}

export function transportOf(request: WorkloadRequest, source: WorkloadSource): Transport {
  if (request.transport !== undefined) return request.transport;
  if (source.kind === 'package') return 'stdio';
  return source.url.pathname.replace(/\/+$/, '').endsWith('/sse') ? 'sse' : 'streamable-http';
}

/** A stdio server is bridged in the chosen mode; an HTTP server is reverse-proxied in its own protocol. */
export function proxyModeOf(request: WorkloadRequest, transport: Transport): ProxyMode {
  return transport === 'stdio' ? (request.proxy_mode ?? 'streamable-http') : transport;
}

export interface BuildRunConfigInput {
  request: WorkloadRequest;
  source: WorkloadSource;
  name: string;
  group: string;
  port: number;
  targetPort: number;
  command: ServerCommand | undefined;
  createdAt: string;
  /** The body as given, saved for details when `request` is a registry reference made concrete. */
  body?: WorkloadRequest;
  registry?: RegistryOrigin | undefined;
}

export function buildRunConfig(input: BuildRunConfigInput): RunConfig {
  const { request, source } = input;
  const transport = transportOf(request, source);
  const forward = request.header_forward ?? {};
  return {
    schema_version: RUN_CONFIG_SCHEMA_VERSION,
    name: input.name,
    group: input.group,
    image: source.kind === 'package' ? source.image : '',
    remote_url: source.kind === 'remote' ? source.url.href : '',
    registry_url: input.registry?.url ?? '',
    registry_server_name: input.registry?.entry.server ?? '',
    cmd_args: request.cmd_arguments ?? [],
    env_vars: request.env_vars ?? {},
    secrets: request.secrets ?? [],
    header_forward: {
      add_plaintext_headers: { ...forward.add_plaintext_headers, ...staticHeaders(request.headers) },
      add_headers_from_secret: { ...forward.add_headers_from_secret },
    },
    transport,
    proxy_mode: proxyModeOf(request, transport),
    host: request.host ?? DEFAULT_HOST,
    port: input.port,
    target_port: input.targetPort,
    labels: request.labels ?? {},
    tools_filter: request.tools ?? [],
    tools_override: request.tools_override ?? {},
    rate_limit_config: request.rate_limit_config ?? null,
    // 0 and '' leave the limit to the proxy's default, so a better default reaches old workloads too.
    max_request_body_size: request.max_request_body_size ?? PROXY_DEFAULTS.max_request_body_size,
    proxy_read_timeout: request.proxy_read_timeout ?? PROXY_DEFAULTS.proxy_read_timeout,
    session_ttl: request.session_ttl ?? PROXY_DEFAULTS.session_ttl,
    runtime_config: request.runtime_config ?? null,
    permission_profile_name_or_path: request.permission_profile ?? 'none',
    isolate_network: request.network_isolation ?? false,
    trust_proxy_headers: request.trust_proxy_headers ?? false,
    volumes: request.volumes ?? [],
    middleware_configs: [],
    created_at: input.createdAt,
    ...(input.command !== undefined && { command: input.command }),
    request: { ...(input.body ?? request), name: input.name, group: input.group },
    ...(input.registry !== undefined && { registry_entry: input.registry.entry }),
  };
}
