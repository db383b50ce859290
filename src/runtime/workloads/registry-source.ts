import { Value } from '@sinclair/typebox/value';
import { InvalidInputError, NotFoundError } from '../../core/errors.js';
import type { ServerLookup } from '../registry/schemas.js';
import type { RegistryLookup } from '../registry/types.js';
import type { SecretReader } from '../secrets/environment.js';
import { RegistryEntry, type RunConfig, type SecretRef, type WorkloadRequest } from './schemas.js';

/** The only registry there is; other names are unknown (404). */
export const DEFAULT_REGISTRY = 'default';

/** Where a registry-sourced workload came from, recorded in its run configuration. */
export interface RegistryOrigin {
  /** The registry's catalog URL, or its API URL when it has no catalog URL. */
  url: string;
  entry: RegistryEntry;
}

export function entryOf(registry: string, found: ServerLookup): RegistryEntry {
  if (found.is_remote) {
    const server = found.remote_server;
    return {
      registry,
      server: server.catalog_name || server.name,
      version: server.version,
      remote: true,
      image: '',
      url: server.url,
      transport: server.transport,
      args: [],
      env_vars: server.env_vars,
      permissions: {},
      headers: server.headers.map(({ name, description, required, secret, default: value }) => ({ name, description, required, secret, default: value })),
    };
  }
  const { server } = found;
  return {
    registry,
    server: server.catalog_name || server.name,
    version: server.version,
    remote: false,
    image: server.image,
    url: '',
    transport: server.transport,
    args: server.args,
    env_vars: server.env_vars,
    headers: [],
    permissions: server.permissions,
  };
}

/** The entry kept with a workload; undefined for a workload not made from a registry or a file that lacks it. */
export function registryEntryOf(config: RunConfig): RegistryEntry | undefined {
  if (!('registry_entry' in config)) return undefined;
  const kept = config.registry_entry;
  return Value.Check(RegistryEntry, kept) ? kept : undefined;
}

/** The newest catalog entry for a server: 404 for a registry other than `default`, 400 for a server it lacks. */
export async function findEntry(registry: RegistryLookup, reference: { registry: string; server: string }): Promise<RegistryEntry> {
  if (reference.registry !== DEFAULT_REGISTRY) throw new NotFoundError(`registry ${reference.registry} not found`);
  const found = await registry.findServer(reference.registry, reference.server);
  if (found === undefined) throw new InvalidInputError(`server ${reference.server} is not in registry ${reference.registry}`);
  return entryOf(reference.registry, found);
}

/** `io.github.acme/weather-server` → `weather-server`: a valid workload name from the entry's name. */
export function entryWorkloadName(entry: RegistryEntry): string {
  const last = entry.server.split('/').at(-1) ?? '';
  const cleaned = last.replace(/[^a-zA-Z0-9._-]+/g, '-').replace(/^[^a-zA-Z0-9]+/, '').slice(0, 59);
  return cleaned === '' ? 'workload' : cleaned;
}

/** The key under which a declared secret is looked for: lowercased first (`GITHUB_TOKEN` → `github_token`), then as declared. */
async function storedSecret(declared: string, secrets: SecretReader): Promise<string | undefined> {
  for (const key of new Set([declared.toLowerCase(), declared])) {
    if ((await secrets.get(key)) !== undefined) return key;
  }
  return undefined;
}

interface Fill {
  env: string[];
  headers: string[];
}

async function fillEnv(request: WorkloadRequest, entry: RegistryEntry, secrets: SecretReader, fill: Fill) {
  const env: Record<string, string> = { ...request.env_vars };
  const refs: SecretRef[] = [...(request.secrets ?? [])];
  const targets = new Set(refs.map((ref) => ref.target));
  for (const declared of entry.env_vars) {
    if (Object.hasOwn(env, declared.name) || targets.has(declared.name)) continue;
    const key = declared.secret ? await storedSecret(declared.name, secrets) : undefined;
    if (key !== undefined) refs.push({ name: key, target: declared.name });
    else if (declared.default !== '') env[declared.name] = declared.default;
    else if (declared.required) fill.env.push(declared.name);
  }
  return {
    ...(Object.keys(env).length > 0 && { env_vars: env }),
    ...(refs.length > 0 && { secrets: refs }),
  };
}

async function fillHeaders(request: WorkloadRequest, entry: RegistryEntry, secrets: SecretReader, fill: Fill) {
  const headers = [...(request.headers ?? [])];
  const fromSecret: Record<string, string> = { ...request.header_forward?.add_headers_from_secret };
  const given = new Set(
    [
      ...headers.map((header) => header.split(':')[0]?.trim() ?? ''),
      ...Object.keys(request.header_forward?.add_plaintext_headers ?? {}),
      ...Object.keys(fromSecret),
    ].map((name) => name.toLowerCase()),
  );
  for (const declared of entry.headers) {
    if (given.has(declared.name.toLowerCase())) continue;
    const key = declared.secret ? await storedSecret(declared.name, secrets) : undefined;
    if (key !== undefined) fromSecret[declared.name] = key;
    else if (declared.default !== '') headers.push(`${declared.name}: ${declared.default}`);
    else if (declared.required) fill.headers.push(declared.name);
  }
  const forward = { ...request.header_forward, ...(Object.keys(fromSecret).length > 0 && { add_headers_from_secret: fromSecret }) };
  return {
    ...(headers.length > 0 && { headers }),
    ...(Object.keys(forward).length > 0 && { header_forward: forward }),
  };
}

/**
 * A `{registry, server}` body made concrete: the entry's image or url, with its transport, arguments,
 * env vars and headers under what the body gives. Declared secrets the body leaves out become
 * references to a stored secret of the same name; required values still missing are one 400 naming
 * them all, before anything is installed.
 */
export async function applyEntry(request: WorkloadRequest, entry: RegistryEntry, secrets: SecretReader): Promise<WorkloadRequest> {
  const concrete: WorkloadRequest = { ...request };
  delete concrete.registry;
  delete concrete.server;
  const fill: Fill = { env: [], headers: [] };
  const filled = entry.remote
    ? { url: entry.url, ...(await fillHeaders(request, entry, secrets, fill)) }
    : {
        image: entry.image,
        ...(request.cmd_arguments === undefined && entry.args.length > 0 && { cmd_arguments: entry.args }),
        ...(await fillEnv(request, entry, secrets, fill)),
      };
  const missing = [
    ...(fill.env.length > 0 ? [`the env vars ${fill.env.join(', ')} (in env_vars, or as secrets {name, target})`] : []),
    ...(fill.headers.length > 0 ? [`the headers ${fill.headers.join(', ')} (in headers or header_forward)`] : []),
  ];
  if (missing.length > 0) throw new InvalidInputError(`server ${entry.server} requires ${missing.join(' and ')}`);
  return { ...concrete, ...filled, transport: request.transport ?? entry.transport };
}
