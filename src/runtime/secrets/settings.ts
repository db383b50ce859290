import { readStateFile, writeFileAtomic } from '../state/files.js';
import { SecretsSettings } from './schemas.js';

/** `<config>/secrets.json`; undefined until a provider is set up. */
export const readSecretsSettings = (path: string): Promise<SecretsSettings | undefined> => readStateFile(path, SecretsSettings);

export const writeSecretsSettings = (path: string, settings: SecretsSettings): Promise<void> =>
  writeFileAtomic(path, `${JSON.stringify(settings, null, 2)}\n`, 0o600);
