import { SecretsOperationNotSupportedError } from './errors.js';
import { PROVIDER_CAPABILITIES, type SecretsProvider } from './types.js';

/** Reads secret values by key. Callers keep values out of logs and responses; only keys travel. */
export interface SecretReader {
  get: (name: string) => Promise<string | undefined>;
}

/** `github-token` → `TOOLYARD_SECRET_GITHUB_TOKEN`. */
export function secretVariableName(name: string): string {
  return `TOOLYARD_SECRET_${name.toUpperCase().replace(/[^A-Z0-9]/g, '_')}`;
}

/**
 * The environment provider: secrets are environment variables of the runtime process. The map is
 * passed in so that nothing reads `process.env` deep in the code.
 */
export function createEnvironmentSecretReader(env: Readonly<Record<string, string | undefined>>): SecretReader {
  return {
    get: (name) => Promise.resolve(env[secretVariableName(name)]),
  };
}

const readOnly = (operation: string): Promise<never> =>
  Promise.reject(new SecretsOperationNotSupportedError(`the environment secrets provider cannot ${operation}: its secrets are the runtime's TOOLYARD_SECRET_<NAME> variables`));

/** The environment as a provider: read-only, and it cannot list (the variables are not its to enumerate). */
export function createEnvironmentSecretsProvider(env: Readonly<Record<string, string | undefined>>): SecretsProvider {
  const reader = createEnvironmentSecretReader(env);
  return {
    type: 'environment',
    capabilities: PROVIDER_CAPABILITIES.environment,
    get: reader.get,
    set: () => readOnly('write secrets'),
    delete: () => readOnly('delete secrets'),
    list: () => readOnly('list secrets'),
  };
}
