import { readFile } from 'node:fs/promises';
import { ConflictError, NotFoundError } from '../../core/errors.js';
import { withFileLock, writeFileAtomic } from '../state/files.js';
import { DEFAULT_SCRYPT, decryptStore, encryptStore, newKdfHeader, parseStoreFile, type KdfHeader, type KeyDeriver, type ScryptParams, type SecretsMap } from './cipher-file.js';
import { SecretsLockedError } from './errors.js';
import type { PasswordOrigin, PasswordSource } from './password.js';
import { PROVIDER_CAPABILITIES, type SecretsProvider } from './types.js';

export interface EncryptedProviderOptions {
  /** The one store file. */
  file: string;
  passwords: PasswordSource;
  deriver: KeyDeriver;
  /** Cost of new files; tests lower it, files keep the cost they were written with. */
  scrypt?: ScryptParams;
}

export interface EncryptedProvider extends SecretsProvider {
  /**
   * Creates the store, or checks that it opens. With a password: opens the store with the current
   * password or the given one, then keeps the given one and re-encrypts the store with it.
   */
  setup: (password?: string) => Promise<PasswordOrigin>;
}

interface Opened {
  secrets: SecretsMap;
  kdf: KdfHeader;
  key: Buffer;
}

async function readText(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** Secrets in one AES-256-GCM file; every write replaces the whole file under a lock shared by all processes. */
export function createEncryptedProvider(options: EncryptedProviderOptions): EncryptedProvider {
  const { file, passwords, deriver } = options;
  const scrypt = options.scrypt ?? DEFAULT_SCRYPT;

  const openWith = async (text: string, password: string): Promise<Opened> => {
    const parsed = parseStoreFile(text);
    const key = await deriver.derive(password, parsed.kdf);
    return { secrets: decryptStore(parsed, key), kdf: parsed.kdf, key };
  };

  /** The store's content; undefined when there is no store yet (which is empty, not locked). */
  const open = async (): Promise<Opened | undefined> => {
    const text = await readText(file);
    if (text === undefined) return undefined;
    // a damaged header is reported as such before any password is looked for
    parseStoreFile(text);
    const found = await passwords.current();
    if (found === undefined) throw new SecretsLockedError('no password is configured: none in the OS keyring, TOOLYARD_SECRETS_PASSWORD or the key file');
    return openWith(text, found.password);
  };

  const fresh = async (password: string): Promise<Omit<Opened, 'secrets'>> => {
    const kdf = newKdfHeader(scrypt);
    return { kdf, key: await deriver.derive(password, kdf) };
  };

  const write = (secrets: SecretsMap, sealed: Omit<Opened, 'secrets'>): Promise<void> => writeFileAtomic(file, encryptStore(secrets, sealed.kdf, sealed.key), 0o600);

  /** Read, change and write back under the lock; `change` throws before anything is written. */
  const mutate = (change: (secrets: SecretsMap) => void): Promise<void> =>
    withFileLock(file, async () => {
      const opened = await open();
      const secrets = opened?.secrets ?? new Map<string, string>();
      change(secrets);
      await write(secrets, opened ?? (await fresh(await passwords.establish())));
    });

  const setup = (password?: string): Promise<PasswordOrigin> =>
    withFileLock(file, async () => {
      const text = await readText(file);
      if (password === undefined) {
        if (text === undefined) await write(new Map(), await fresh(await passwords.establish()));
        else await open();
        const found = await passwords.current();
        if (found === undefined) throw new SecretsLockedError('the password just saved cannot be found again');
        return found.origin;
      }
      let secrets: SecretsMap = new Map();
      if (text !== undefined) secrets = await openForReconfigure(text, password);
      // the password is kept first: if that is refused nothing has changed; if the write then fails,
      // setup with the old password restores a consistent pair
      const origin = await passwords.save(password);
      await write(secrets, await fresh(password));
      return origin;
    });

  /** The current password or the given one must open an existing store: setup never discards secrets. */
  const openForReconfigure = async (text: string, password: string): Promise<SecretsMap> => {
    const found = await passwords.current();
    if (found !== undefined) {
      try {
        return (await openWith(text, found.password)).secrets;
      } catch (error) {
        if (!(error instanceof SecretsLockedError)) throw error;
      }
    }
    return (await openWith(text, password)).secrets;
  };

  return {
    type: 'encrypted',
    capabilities: PROVIDER_CAPABILITIES.encrypted,
    get: async (key) => (await open())?.secrets.get(key),
    list: async () => [...((await open())?.secrets.keys() ?? [])].sort(),
    set: (key, value, expect) =>
      mutate((secrets) => {
        if (expect === 'new' && secrets.has(key)) throw new ConflictError(`secret "${key}" already exists`);
        if (expect === 'existing' && !secrets.has(key)) throw new NotFoundError(`secret "${key}" not found`);
        secrets.set(key, value);
      }),
    delete: (key) =>
      mutate((secrets) => {
        if (!secrets.delete(key)) throw new NotFoundError(`secret "${key}" not found`);
      }),
    setup,
  };
}
