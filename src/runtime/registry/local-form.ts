import { text, type Json } from './server-json.js';
import type { ContainerServerEntry, EnvVarDeclaration, RemoteServerEntry } from './schemas.js';
import { isJsonObject } from '../../core/json-object.js';

/**
 * The local registry form: `{version, last_updated, servers: {name: entry}, remote_servers: {...}}`
 * with the runtime's own entry shapes (ToolHive's registry.json reads as-is). Fields a file leaves out
 * get their empty value so every entry has the full shape.
 */

const objects = (value: unknown): Json[] => (Array.isArray(value) ? value.filter(isJsonObject) : []);
const strings = (value: unknown): string[] => (Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : []);
const object = (value: unknown): Json => (isJsonObject(value) ? value : {});

function envVars(value: unknown): EnvVarDeclaration[] {
  return objects(value).map((variable) => ({
    name: text(variable.name),
    description: text(variable.description),
    required: variable.required === true,
    secret: variable.secret === true,
    default: text(variable.default),
  }));
}

function common(name: string, entry: Json) {
  return {
    name,
    catalog_name: name,
    title: text(entry.title),
    description: text(entry.description),
    env_vars: envVars(entry.env_vars),
    tools: strings(entry.tools),
    tags: strings(entry.tags),
    repository_url: text(entry.repository_url),
    status: text(entry.status) || 'Active',
    tier: text(entry.tier),
    metadata: object(entry.metadata),
    custom_metadata: object(entry.custom_metadata),
    version: text(entry.version),
  };
}

export function containerEntry(name: string, entry: Json): ContainerServerEntry {
  const transport = entry.transport === 'streamable-http' || entry.transport === 'sse' ? entry.transport : 'stdio';
  return {
    ...common(name, entry),
    image: text(entry.image),
    transport,
    target_port: typeof entry.target_port === 'number' && Number.isInteger(entry.target_port) ? entry.target_port : 0,
    args: strings(entry.args),
    permissions: object(entry.permissions),
  };
}

export function remoteEntry(name: string, entry: Json): RemoteServerEntry {
  return {
    ...common(name, entry),
    url: text(entry.url),
    transport: entry.transport === 'sse' ? 'sse' : 'streamable-http',
    headers: objects(entry.headers).map((header) => ({
      name: text(header.name),
      description: text(header.description),
      required: header.required === true,
      secret: header.secret === true,
      default: text(header.default),
      choices: strings(header.choices),
    })),
  };
}

const EXTRAS_NAMESPACE = 'dev.toolyard';

function extras(entry: ContainerServerEntry | RemoteServerEntry, more: Json = {}): Json {
  const { tier, status, tools, tags, metadata, custom_metadata } = entry;
  return { 'io.modelcontextprotocol.registry/publisher-provided': { [EXTRAS_NAMESPACE]: { tier, status, tools, tags, metadata, custom_metadata, ...more } } };
}

const inputs = (variables: EnvVarDeclaration[]) =>
  variables.map((variable) => ({ name: variable.name, description: variable.description, isRequired: variable.required, isSecret: variable.secret, ...(variable.default !== '' && { default: variable.default }) }));

/** The package a `npx://`, `uvx://` or OCI image stands for, in server.json terms. */
function packageOf(image: string): Json {
  const scheme = /^(npx|uvx|go):\/\/(.+)$/.exec(image);
  if (scheme?.[1] === undefined || scheme[2] === undefined) return { registryType: 'oci', identifier: image };
  const reference = scheme[2];
  const at = reference.indexOf('@', reference.startsWith('@') ? 1 : 0);
  const [identifier, version] = at > 0 ? [reference.slice(0, at), reference.slice(at + 1)] : [reference, ''];
  const registryType = { npx: 'npm', uvx: 'pypi', go: 'go' }[scheme[1]] ?? 'oci';
  return { registryType, identifier, ...(version !== '' && { version }) };
}

/** The server.json fields every entry has, named by its entry name. */
function serverJsonHead(entry: ContainerServerEntry | RemoteServerEntry): Json {
  return {
    name: entry.name,
    title: entry.title,
    description: entry.description,
    version: entry.version,
    ...(entry.repository_url !== '' && { repository: { url: entry.repository_url } }),
  };
}

/** A local-form entry as a server.json for the browse API, named by its entry name (the file gives no other). */
export function serverJsonOfContainer(entry: ContainerServerEntry): Json {
  const port = entry.target_port > 0 ? entry.target_port : 8080;
  return {
    ...serverJsonHead(entry),
    packages: [
      {
        ...packageOf(entry.image),
        transport: entry.transport === 'stdio' ? { type: 'stdio' } : { type: entry.transport, url: `http://localhost:${String(port)}${entry.transport === 'sse' ? '/sse' : '/mcp'}` },
        packageArguments: entry.args.map((value) => ({ type: 'positional', value })),
        environmentVariables: inputs(entry.env_vars),
      },
    ],
    _meta: extras(entry, { permissions: entry.permissions }),
  };
}

export function serverJsonOfRemote(entry: RemoteServerEntry): Json {
  return {
    ...serverJsonHead(entry),
    remotes: [
      {
        type: entry.transport,
        url: entry.url,
        headers: entry.headers.map((header) => ({
          name: header.name,
          description: header.description,
          isRequired: header.required,
          isSecret: header.secret,
          ...(header.default !== '' && { default: header.default }),
          ...(header.choices.length > 0 && { choices: header.choices }),
        })),
      },
    ],
    _meta: extras(entry),
  };
}
