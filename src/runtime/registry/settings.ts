import { join } from 'node:path';
import type { RuntimePaths } from '../paths.js';
import { readStateFile, writeFileAtomic } from '../state/files.js';
import { RegistryUpdateSchema, type RegistryUpdate } from './schemas.js';

/** The one source in force: an API first, then a catalog URL, then a local file, else the shipped catalog. */
export type ActiveSource =
  | { type: 'api'; location: string; allowPrivateIp: boolean }
  | { type: 'url'; location: string; allowPrivateIp: boolean }
  | { type: 'file'; location: string }
  | { type: 'default'; location: string };

export function activeSource(settings: RegistryUpdate, shippedCatalogPath: string): ActiveSource {
  const allowPrivateIp = settings.allow_private_ip === true;
  if (settings.api_url) return { type: 'api', location: settings.api_url, allowPrivateIp };
  if (settings.url) return { type: 'url', location: settings.url, allowPrivateIp };
  if (settings.local_path) return { type: 'file', location: settings.local_path };
  return { type: 'default', location: shippedCatalogPath };
}

export interface SettingsStore {
  read: () => Promise<RegistryUpdate>;
  write: (settings: RegistryUpdate) => Promise<void>;
}

export function createSettingsStore(paths: RuntimePaths): SettingsStore {
  const file = join(paths.config, 'registry.json');
  return {
    read: async () => (await readStateFile(file, RegistryUpdateSchema)) ?? {},
    write: (settings) => writeFileAtomic(file, `${JSON.stringify(settings, null, 2)}\n`),
  };
}
