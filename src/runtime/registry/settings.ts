import { join } from 'node:path';
import type { RuntimePaths } from '../paths.js';
import { readJsonFile, writeFileAtomic } from '../state/files.js';
import { isObject, text } from './server-json.js';

/** Where the `default` registry reads from, as saved in `<config>/registry.json`. */
export interface RegistrySettings {
  api_url?: string;
  url?: string;
  local_path?: string;
  allow_private_ip?: boolean;
}

export type SourceType = 'api' | 'url' | 'file' | 'default';

/** The one source in force: an API first, then a catalog URL, then a local file, else the shipped catalog. */
export type ActiveSource =
  | { type: 'api'; location: string; allowPrivateIp: boolean }
  | { type: 'url'; location: string; allowPrivateIp: boolean }
  | { type: 'file'; location: string }
  | { type: 'default'; location: string };

export function activeSource(settings: RegistrySettings, shippedCatalogPath: string): ActiveSource {
  const allowPrivateIp = settings.allow_private_ip === true;
  if (settings.api_url) return { type: 'api', location: settings.api_url, allowPrivateIp };
  if (settings.url) return { type: 'url', location: settings.url, allowPrivateIp };
  if (settings.local_path) return { type: 'file', location: settings.local_path };
  return { type: 'default', location: shippedCatalogPath };
}

export interface SettingsStore {
  read: () => Promise<RegistrySettings>;
  write: (settings: RegistrySettings) => Promise<void>;
}

export function createSettingsStore(paths: RuntimePaths): SettingsStore {
  const file = join(paths.config, 'registry.json');
  return {
    read: async () => {
      const saved = await readJsonFile(file);
      if (!isObject(saved)) return {};
      const settings: RegistrySettings = {};
      for (const key of ['api_url', 'url', 'local_path'] as const) if (text(saved[key]) !== '') settings[key] = text(saved[key]);
      if (saved.allow_private_ip === true) settings.allow_private_ip = true;
      return settings;
    },
    write: (settings) => writeFileAtomic(file, `${JSON.stringify(settings, null, 2)}\n`),
  };
}
