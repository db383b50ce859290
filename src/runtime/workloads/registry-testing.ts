import { UnavailableError } from '../../core/errors.js';
import type { ContainerServerEntry, RemoteServerEntry } from '../registry/schemas.js';
import type { RegistryLookup } from '../registry/types.js';

/**
 * A fake RegistryLookup for workload and upgrade tests: an in-memory `default` catalog that a test
 * changes between calls, as a refreshed catalog would.
 */
export interface FakeRegistryLookup {
  lookup: RegistryLookup;
  servers: Map<string, ContainerServerEntry>;
  remoteServers: Map<string, RemoteServerEntry>;
  /** Makes every read fail as an unreachable catalog with nothing cached does. */
  unavailable: boolean;
  /** Server names looked up, in order. */
  lookups: string[];
}

export const FAKE_REGISTRY_URL = 'https://catalog.example.com/registry.json';

export function createFakeRegistryLookup(): FakeRegistryLookup {
  const fake: FakeRegistryLookup = {
    servers: new Map(),
    remoteServers: new Map(),
    unavailable: false,
    lookups: [],
    lookup: {
      findServer: (registry, server) => {
        fake.lookups.push(server);
        if (fake.unavailable) return Promise.reject(new UnavailableError('the catalog cannot be read'));
        if (registry !== 'default') return Promise.resolve(undefined);
        const container = fake.servers.get(server);
        if (container !== undefined) return Promise.resolve({ is_remote: false, server: container });
        const remote = fake.remoteServers.get(server);
        return Promise.resolve(remote === undefined ? undefined : { is_remote: true, remote_server: remote });
      },
      describe: () => Promise.resolve({ url: FAKE_REGISTRY_URL, api_url: '' }),
    },
  };
  return fake;
}

/** The fields every test entry has; the version is 1.0.0 unless a test says otherwise. */
function entryBase(name: string) {
  return {
    name,
    catalog_name: name,
    title: name,
    description: `${name} for tests`,
    env_vars: [],
    tools: [],
    tags: [],
    repository_url: '',
    status: 'active',
    tier: 'community',
    metadata: {},
    custom_metadata: {},
    version: '1.0.0',
  };
}

export function containerEntry(name: string, image: string, fields: Partial<ContainerServerEntry> = {}): ContainerServerEntry {
  return { ...entryBase(name), image, transport: 'stdio', target_port: 0, args: [], permissions: {}, ...fields };
}

export function remoteEntry(name: string, url: string, fields: Partial<RemoteServerEntry> = {}): RemoteServerEntry {
  return { ...entryBase(name), url, transport: 'streamable-http', headers: [], ...fields };
}
