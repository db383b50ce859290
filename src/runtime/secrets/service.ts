import { join } from 'node:path';
import { InvalidInputError, UnavailableError } from '../../core/errors.js';
import { findExecutable as findOnPath } from '../packages/toolchain.js';
import type { RuntimePaths } from '../paths.js';
import { createKeyDeriver, type ScryptParams } from './cipher-file.js';
import { createEncryptedProvider } from './encrypted.js';
import { createEnvironmentSecretsProvider, type SecretReader } from './environment.js';
import { SecretsOperationNotSupportedError } from './errors.js';
import { findKeyring } from './keyring.js';
import { ONE_PASSWORD_TOKEN, createOnePasswordProvider } from './onepassword.js';
import { createPasswordSource, type PasswordOrigin } from './password.js';
import { runProcess, type ProcessRunner } from './process.js';
import { readSecretsSettings, writeSecretsSettings } from './settings.js';
import type { Capabilities, ProviderDescription, ProviderType } from './schemas.js';
import { PROVIDER_CAPABILITIES, type SecretsProvider } from './types.js';

export interface SecretsServiceOptions {
  paths: RuntimePaths;
  /** The runtime's environment: TOOLYARD_SECRET_*, TOOLYARD_SECRETS_PASSWORD, OP_SERVICE_ACCOUNT_TOKEN, PATH, the session bus. */
  env: Readonly<Record<string, string | undefined>>;
  platform?: NodeJS.Platform;
  /** Runs secret-tool, security and op; tests pass fakes so no real keyring is touched. */
  run?: ProcessRunner;
  findExecutable?: (name: string, pathValue: string | undefined) => Promise<string | undefined>;
  /** Cost of newly written store files (tests lower it). */
  scrypt?: ScryptParams;
}

export interface SecretsService {
  setup: (providerType: ProviderType, password?: string) => Promise<{ provider_type: ProviderType; message: string }>;
  describe: () => Promise<ProviderDescription>;
  listKeys: () => Promise<{ key: string }[]>;
  create: (key: string, value: string) => Promise<void>;
  update: (key: string, value: string) => Promise<void>;
  delete: (key: string) => Promise<void>;
  /** What workloads resolve references with: the configured provider, then TOOLYARD_SECRET_<NAME>. */
  reader: () => SecretReader;
}

const ORIGINS: Record<PasswordOrigin, (keyFile: string) => string> = {
  keyring: () => 'the OS keyring',
  environment: () => 'TOOLYARD_SECRETS_PASSWORD',
  'key file': (keyFile) => keyFile,
};

/** A password Toolyard can keep in a key file and find again the same: no surrounding whitespace. */
function checkPassword(password: string): void {
  if (password.length < 8) throw new InvalidInputError('password: must be at least 8 characters');
  if (password.trim() !== password || /[\r\n]/.test(password)) throw new InvalidInputError('password: must not start or end with whitespace or contain line breaks');
}

/**
 * The secrets of the local runtime: which provider is configured (`<config>/secrets.json`, encrypted
 * by default), its keys and their values. The encrypted store is `<data>/secrets.enc`, away from the
 * key file in the config directory, so that sharing one's dotfiles does not hand over both.
 */
export function createSecretsService(options: SecretsServiceOptions): SecretsService {
  const { paths, env } = options;
  const run = options.run ?? runProcess;
  const findExecutable = options.findExecutable ?? findOnPath;
  const platform = options.platform ?? process.platform;
  const settingsFile = join(paths.config, 'secrets.json');
  const keyFile = join(paths.config, 'secrets.key');

  const passwords = createPasswordSource({ env, keyFile, keyring: () => findKeyring({ env, platform, run, findExecutable }) });
  const encrypted = createEncryptedProvider({
    file: join(paths.data, 'secrets.enc'),
    passwords,
    // one per service, so scrypt runs once per process for each store password
    deriver: createKeyDeriver(),
    ...(options.scrypt !== undefined && { scrypt: options.scrypt }),
  });
  const environment = createEnvironmentSecretsProvider(env);

  const opExecutable = async (): Promise<string> => {
    if ((env[ONE_PASSWORD_TOKEN] ?? '') === '') throw new InvalidInputError(`the 1password provider needs ${ONE_PASSWORD_TOKEN} in the runtime's environment`);
    const op = await findExecutable('op', env.PATH);
    if (op === undefined) throw new InvalidInputError('the 1password provider needs the 1Password CLI (op) on PATH');
    return op;
  };

  const configuredType = async (): Promise<ProviderType> => (await readSecretsSettings(settingsFile))?.provider_type ?? 'encrypted';

  const provider = async (): Promise<SecretsProvider> => {
    const type = await configuredType();
    if (type === 'encrypted') return encrypted;
    if (type === 'environment') return environment;
    try {
      return createOnePasswordProvider({ op: await opExecutable(), env, run });
    } catch (error) {
      // configured earlier, unusable now: the runtime's environment changed since setup
      if (error instanceof InvalidInputError) throw new UnavailableError(`the configured secrets provider is unavailable: ${error.message}`);
      throw error;
    }
  };

  const capable = async (capability: keyof Capabilities, operation: string): Promise<SecretsProvider> => {
    const current = await provider();
    if (!current.capabilities[capability]) throw new SecretsOperationNotSupportedError(`the ${current.type} secrets provider cannot ${operation}`);
    return current;
  };

  const setupMessage = async (type: ProviderType, password: string | undefined): Promise<string> => {
    if (type === 'encrypted') {
      const origin = await encrypted.setup(password);
      return `the encrypted secrets provider is ready; its password is kept in ${ORIGINS[origin](keyFile)}`;
    }
    if (type === 'environment') return 'the environment secrets provider is ready; it reads TOOLYARD_SECRET_<NAME> variables and cannot write';
    await opExecutable();
    return 'the 1password secrets provider is ready; it reads op:// references and cannot write';
  };

  return {
    setup: async (type, password) => {
      if (password !== undefined) {
        if (type !== 'encrypted') throw new InvalidInputError('password: only the encrypted provider takes a password');
        checkPassword(password);
      }
      const message = await setupMessage(type, password);
      await writeSecretsSettings(settingsFile, { provider_type: type });
      return { provider_type: type, message };
    },
    describe: async () => {
      const type = await configuredType();
      return { name: 'default', provider_type: type, capabilities: PROVIDER_CAPABILITIES[type] };
    },
    listKeys: async () => (await (await capable('list', 'list secrets')).list()).map((key) => ({ key })),
    create: async (key, value) => (await capable('write', 'write secrets')).set(key, value, 'new'),
    update: async (key, value) => (await capable('write', 'write secrets')).set(key, value, 'existing'),
    delete: async (key) => (await capable('delete', 'delete secrets')).delete(key),
    reader: () => ({
      get: async (name) => {
        const value = await (await provider()).get(name);
        return value ?? environment.get(name);
      },
    }),
  };
}
