import { join } from 'node:path';
import type { RuntimePaths } from '../paths.js';
import { jsonPath, listJsonNames, readJsonFile, writeFileAtomic } from '../state/files.js';

/** What Toolyard wrote into one client's file: only these entries are ever changed or removed. */
export interface Ownership {
  /** The file the entries are in; entries recorded for another path (XDG moved) are not ours here. */
  file: string;
  servers: string[];
  /** Toolyard added the servers key itself, so it removes it again once it is empty. */
  created_key: boolean;
}

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
      const found = (await readJsonFile(jsonPath(dir, client))) as Ownership | undefined;
      return found?.file === file ? found : { file, servers: [], created_key: false };
    },
    write: (client, ownership) => writeFileAtomic(jsonPath(dir, client), `${JSON.stringify(ownership, null, 2)}\n`),
    clients: () => listJsonNames(dir),
  };
}
