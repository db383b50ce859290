/** An environment variable a catalog entry declares. */
export interface EnvVarDeclaration {
  name: string;
  description: string;
  required: boolean;
  secret: boolean;
  default: string;
}

/** What container and remote server entries share. */
interface ServerEntryBase {
  /** The local entry name (the servers map key). */
  name: string;
  /**
   * The name in the catalog the entry came from (reverse-DNS for server.json records), which stays
   * the same when another server later takes the short local name.
   */
  catalog_name: string;
  title: string;
  description: string;
  env_vars: EnvVarDeclaration[];
  tools: string[];
  tags: string[];
  repository_url: string;
  status: string;
  tier: string;
  metadata: Record<string, unknown>;
  custom_metadata: Record<string, unknown>;
  /** The catalog record's version (the upstream server.json version). */
  version: string;
}

/** A server the runtime runs as a process (or, with an engine, a container): the spec's "container server entry". */
export interface ContainerServerEntry extends ServerEntryBase {
  /** npx://pkg@version, uvx://pkg@version or an OCI reference. */
  image: string;
  transport: 'stdio' | 'streamable-http' | 'sse';
  target_port: number;
  args: string[];
  permissions: Record<string, unknown>;
}

export interface RemoteServerEntry extends ServerEntryBase {
  url: string;
  transport: 'streamable-http' | 'sse';
  headers: { name: string; description: string; required: boolean; secret: boolean; default: string; choices: string[] }[];
}

export type ServerLookup =
  | { is_remote: false; server: ContainerServerEntry }
  | { is_remote: true; remote_server: RemoteServerEntry };

/** What the workloads and upgrades need from the configured registry (`default`). */
export interface RegistryLookup {
  /**
   * The newest entry for a server, by its local entry name (the servers map key) or its full
   * reverse-DNS catalog name; undefined when the catalog has no such server. Throws UnavailableError
   * when the catalog cannot be read and nothing is cached.
   */
  findServer: (registry: string, server: string) => Promise<ServerLookup | undefined>;
  /** Where the registry's data comes from, recorded in a workload's run configuration (registry_url / registry_api_url). */
  describe: (registry: string) => Promise<{ url: string; api_url: string }>;
}
