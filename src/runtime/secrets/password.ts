import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { InvalidInputError } from '../../core/errors.js';
import { writeFileAtomic } from '../state/files.js';
import type { Keyring } from './keyring.js';

export const PASSWORD_VARIABLE = 'TOOLYARD_SECRETS_PASSWORD';

export type PasswordOrigin = 'keyring' | 'environment' | 'key file';

export interface PasswordSourceOptions {
  env: Readonly<Record<string, string | undefined>>;
  /** `<config>/secrets.key`: the fallback that makes headless machines work without a prompt. */
  keyFile: string;
  /** Looked up on each use: a session bus may come and go between calls. */
  keyring: () => Promise<Keyring | undefined>;
}

/** Where the encrypted store's password comes from, in order: the OS keyring, the environment, the key file. */
export interface PasswordSource {
  current: () => Promise<{ password: string; origin: PasswordOrigin } | undefined>;
  /** The current password, or a new random one saved for next time (first use of a new store). */
  establish: () => Promise<string>;
  /** Keeps a password chosen by the user where `current` will find it; answers where that is. */
  save: (password: string) => Promise<PasswordOrigin>;
}

async function readKeyFile(path: string): Promise<string | undefined> {
  try {
    const content = (await readFile(path, 'utf8')).trim();
    return content === '' ? undefined : content;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

export function createPasswordSource(options: PasswordSourceOptions): PasswordSource {
  const { env, keyFile } = options;
  const fromEnvironment = (): string | undefined => {
    const value = env[PASSWORD_VARIABLE];
    return value === undefined || value === '' ? undefined : value;
  };

  const current: PasswordSource['current'] = async () => {
    const keyring = await options.keyring();
    const stored = await keyring?.lookup();
    if (stored !== undefined) return { password: stored, origin: 'keyring' };
    const variable = fromEnvironment();
    if (variable !== undefined) return { password: variable, origin: 'environment' };
    const file = await readKeyFile(keyFile);
    return file === undefined ? undefined : { password: file, origin: 'key file' };
  };

  const toKeyring = async (password: string): Promise<boolean> => {
    const keyring = await options.keyring();
    return keyring !== undefined && (await keyring.store(password));
  };
  const toKeyFile = (password: string): Promise<void> => writeFileAtomic(keyFile, `${password}\n`, 0o600);

  return {
    current,
    establish: async () => {
      const found = await current();
      if (found !== undefined) return found.password;
      const password = randomBytes(32).toString('base64');
      if (!(await toKeyring(password))) await toKeyFile(password);
      return password;
    },
    save: async (password) => {
      // the keyring comes before the variable: storing there wins even when the variable is set
      if (await toKeyring(password)) return 'keyring';
      const variable = fromEnvironment();
      if (variable !== undefined) {
        if (variable === password) return 'environment';
        throw new InvalidInputError(`${PASSWORD_VARIABLE} is set in the runtime's environment and holds another password; change it there instead`);
      }
      await toKeyFile(password);
      return 'key file';
    },
  };
}
