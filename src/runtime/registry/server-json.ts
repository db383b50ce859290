import type { ContainerServerEntry, EnvVarDeclaration, RemoteServerEntry, ServerLookup } from './schemas.js';
import { isJsonObject } from '../../core/json-object.js';

/** A JSON object as read from a catalog: every field is checked before use. */
export type Json = Record<string, unknown>;

export const OFFICIAL_META = 'io.modelcontextprotocol.registry/official';
const PUBLISHER_META = 'io.modelcontextprotocol.registry/publisher-provided';
/** Package kinds the runtime can run, in the order it prefers them when a server offers several. */
const RUNNABLE = ['npm', 'pypi', 'oci'] as const;

export const text = (value: unknown): string => (typeof value === 'string' ? value : '');
const objects = (value: unknown): Json[] => (Array.isArray(value) ? value.filter(isJsonObject) : []);
const strings = (value: unknown): string[] => (Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : []);
const object = (value: unknown): Json => (isJsonObject(value) ? value : {});

/**
 * Catalog extras (tier, status, tools, tags, permissions, metadata) live in the publisher-provided
 * `_meta`: flat, under a publisher namespace, or under that namespace keyed by the package identifier
 * or remote URL (the ToolHive layout). The most specific place that has a field wins.
 */
export function publisherExtras(server: Json, key: string): Json {
  const provided = object(object(server._meta)[PUBLISHER_META]);
  const layers: Json[] = [];
  for (const namespace of Object.values(provided).filter(isJsonObject)) {
    if (isJsonObject(namespace[key])) layers.push(namespace[key]);
  }
  layers.push(...Object.values(provided).filter(isJsonObject), provided);
  const merged: Json = {};
  for (const layer of layers.reverse()) Object.assign(merged, layer);
  return merged;
}

function envVars(value: unknown): EnvVarDeclaration[] {
  return objects(value)
    .filter((input) => text(input.name) !== '')
    .map((input) => ({
      name: text(input.name),
      description: text(input.description),
      required: input.isRequired === true,
      secret: input.isSecret === true,
      default: text(input.default),
    }));
}

/** Only arguments with a fixed value or a default become args: the others are for the user to give. */
function packageArgs(value: unknown): string[] {
  const args: string[] = [];
  for (const argument of objects(value)) {
    const given = text(argument.value) || text(argument.default);
    if (given === '') continue;
    if (argument.type === 'named' && text(argument.name) !== '') args.push(text(argument.name), given);
    else args.push(given);
  }
  return args;
}

/** An OCI identifier that already names a tag or digest keeps it; a bare repository gets the package version. */
function ociImage(identifier: string, version: string): string {
  const last = identifier.slice(identifier.lastIndexOf('/') + 1);
  if (last.includes(':') || last.includes('@') || version === '') return identifier;
  return `${identifier}:${version}`;
}

function imageOf(pkg: Json): string {
  const identifier = text(pkg.identifier);
  const version = text(pkg.version);
  const pinned = version === '' ? identifier : `${identifier}@${version}`;
  switch (pkg.registryType) {
    case 'npm':
      return `npx://${pinned}`;
    case 'pypi':
      return `uvx://${pinned}`;
    default:
      return ociImage(identifier, version);
  }
}

function transportOf(value: unknown): { transport: ContainerServerEntry['transport']; port: number } {
  const transport = object(value);
  const type = transport.type === 'streamable-http' || transport.type === 'sse' ? transport.type : 'stdio';
  let port = 0;
  try {
    port = type === 'stdio' ? 0 : Number(new URL(text(transport.url).replace(/\{[^}]*\}/g, '0')).port);
  } catch {
    // a templated or missing URL: the runtime picks the port
  }
  return { transport: type, port: Number.isInteger(port) ? port : 0 };
}

function common(server: Json, extras: Json) {
  const official = object(object(server._meta)[OFFICIAL_META]);
  const status = text(extras.status) || text(official.status);
  return {
    name: '',
    catalog_name: text(server.name),
    title: text(server.title),
    description: text(server.description),
    tools: strings(extras.tools),
    tags: strings(extras.tags),
    repository_url: text(object(server.repository).url),
    status: status === '' ? 'Active' : status.charAt(0).toUpperCase() + status.slice(1),
    tier: text(extras.tier),
    metadata: object(extras.metadata),
    custom_metadata: object(extras.custom_metadata),
    version: text(server.version),
  };
}

/**
 * An upstream server.json as the runtime's entry: the first npm, pypi or oci package (in that order
 * of preference: they run without a container engine first), else the first remote; undefined when
 * the server offers nothing the runtime can run (only nuget or mcpb packages, say).
 */
export function entryFromServerJson(server: Json): ServerLookup | undefined {
  const packages = objects(server.packages);
  const pkg = RUNNABLE.map((type) => packages.find((candidate) => candidate.registryType === type && text(candidate.identifier) !== '')).find(Boolean);
  if (pkg) {
    const extras = publisherExtras(server, text(pkg.identifier));
    const { transport, port } = transportOf(pkg.transport);
    const entry: ContainerServerEntry = {
      ...common(server, extras),
      image: imageOf(pkg),
      transport,
      target_port: port,
      args: packageArgs(pkg.packageArguments),
      env_vars: envVars(pkg.environmentVariables),
      permissions: object(extras.permissions),
    };
    return { is_remote: false, server: entry };
  }
  const remote = objects(server.remotes).find((candidate) => (candidate.type === 'streamable-http' || candidate.type === 'sse') && text(candidate.url) !== '');
  if (!remote) return undefined;
  const url = text(remote.url);
  const entry: RemoteServerEntry = {
    ...common(server, publisherExtras(server, url)),
    url,
    transport: remote.type === 'sse' ? 'sse' : 'streamable-http',
    headers: objects(remote.headers)
      .filter((header) => text(header.name) !== '')
      .map((header) => ({
        name: text(header.name),
        description: text(header.description),
        required: header.isRequired === true,
        secret: header.isSecret === true,
        default: text(header.default),
        choices: strings(header.choices),
      })),
    env_vars: [],
  };
  return { is_remote: true, remote_server: entry };
}
