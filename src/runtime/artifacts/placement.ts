import { join } from 'node:path';
import { CLIENTS, CLIENT_TYPES, type ClientDirs, type ClientType } from '../clients/catalog.js';
import { skillsFolder } from '../skills/locations.js';
import type { InstallRecord, Scope } from './store.js';

/** Where one kind's files go for each client that can take it. */
export interface Placement {
  /** The clients that can take this kind (`supports_skills` / `supports_plugins` in discovery). */
  supporting: readonly ClientType[];
  /** The folder each client reads `name` from; clients sharing a folder share one copy. */
  folders: (name: string, clients: readonly ClientType[], where: { scope: Scope; projectRoot: string }) => Map<ClientType, string>;
  /** After the folders are in place: what else the clients need to load it (plugins: marketplaces, settings). */
  register?: (record: InstallRecord) => Promise<void>;
  /** Before the folders are removed: undoes `register`. */
  unregister?: (record: InstallRecord) => Promise<void>;
}

export function skillPlacement(dirs: ClientDirs): Placement {
  return {
    supporting: CLIENT_TYPES.filter((type) => CLIENTS[type].supportsSkills),
    folders: (name, clients, where) => {
      const found = new Map<ClientType, string>();
      for (const client of clients) {
        const folder = skillsFolder(client, where, dirs);
        if (folder !== undefined) found.set(client, join(folder, name));
      }
      return found;
    },
  };
}
