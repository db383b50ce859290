import { readJsonFile, writeFileAtomic } from '../state/files.js';
import { PROVIDER_TYPES, type ProviderType } from './types.js';

export interface SecretsSettings {
  provider_type: ProviderType;
}

const isProviderType = (value: unknown): value is ProviderType => PROVIDER_TYPES.some((type) => type === value);

/** `<config>/secrets.json`; undefined until a provider is set up. */
export async function readSecretsSettings(path: string): Promise<SecretsSettings | undefined> {
  const content = await readJsonFile(path);
  if (content === undefined) return undefined;
  const type = typeof content === 'object' && content !== null && 'provider_type' in content ? content.provider_type : undefined;
  if (!isProviderType(type)) throw new Error(`${path}: provider_type must be one of ${PROVIDER_TYPES.join(', ')}`);
  return { provider_type: type };
}

export const writeSecretsSettings = (path: string, settings: SecretsSettings): Promise<void> =>
  writeFileAtomic(path, `${JSON.stringify(settings, null, 2)}\n`, 0o600);
