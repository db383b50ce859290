import { join } from 'node:path';
import type { RuntimePaths } from '../paths.js';
import { jsonPath, listJsonNames, readStateFile, writeFileAtomic } from '../state/files.js';
import { Ownership } from './schemas.js';

export interface OwnershipStore {
  read: (client: string, file: string) => Promise<Ownership>;
  write: (client: string, ownership: Ownership) => Promise<void>;
  /** Clients with a record, registered or not, so entries left by an unregistered client are cleaned up. */
  clients: () => Promise<string[]>;
}

/** One JSON file per client under `<state>/clients/`. Callers hold the client file's lock. */
export function createOwnershipStore(paths: RuntimePaths): OwnershipStore {
  const dir = join(paths.state, 'clients');
  return {
    read: async (client, file) => {
      const found = await readStateFile(jsonPath(dir, client), Ownership);
      return found?.file === file ? found : { file, servers: [], created_key: false };
    },
    write: (client, ownership) => writeFileAtomic(jsonPath(dir, client), `${JSON.stringify(ownership, null, 2)}\n`),
    clients: () => listJsonNames(dir),
  };
}
