import type { ServerLookup } from './schemas.js';

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
