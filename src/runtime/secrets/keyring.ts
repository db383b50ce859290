import { findExecutable as findOnPath } from '../packages/toolchain.js';
import type { ProcessRunner } from './process.js';

/** The OS keyring entry that holds the encrypted store's password. */
export interface Keyring {
  readonly name: string;
  /** The stored password; undefined when there is none or the keyring did not answer. */
  lookup: () => Promise<string | undefined>;
  /** false when the keyring refused or did not answer, so the caller falls back to the key file. */
  store: (password: string) => Promise<boolean>;
}

export interface KeyringOptions {
  env: Readonly<Record<string, string | undefined>>;
  platform: NodeJS.Platform;
  run: ProcessRunner;
  findExecutable?: (name: string, pathValue: string | undefined) => Promise<string | undefined>;
}

const SERVICE = 'toolyard';
const ACCOUNT = 'secrets';
const LABEL = 'Toolyard secrets';
// a keyring may pop up an unlock prompt; nobody may be there to answer it
const TIMEOUT_MS = 10_000;

const withoutNewline = (text: string): string => (text.endsWith('\n') ? text.slice(0, -1) : text);

/**
 * The keyring of this machine when one can be reached: the Secret Service through `secret-tool` on
 * Linux (only with a session bus, which headless machines lack), the login keychain through
 * `security` on macOS. Undefined otherwise.
 */
export async function findKeyring(options: KeyringOptions): Promise<Keyring | undefined> {
  const { env, platform, run } = options;
  const find = options.findExecutable ?? findOnPath;
  if (platform === 'linux') {
    if ((env.DBUS_SESSION_BUS_ADDRESS ?? '') === '') return undefined;
    const tool = await find('secret-tool', env.PATH);
    if (tool === undefined) return undefined;
    const attributes = ['service', SERVICE, 'account', ACCOUNT];
    return {
      name: 'the Secret Service keyring',
      lookup: async () => {
        const result = await run(tool, ['lookup', ...attributes], { env, timeoutMs: TIMEOUT_MS });
        return result.code === 0 && result.stdout !== '' ? withoutNewline(result.stdout) : undefined;
      },
      store: async (password) => (await run(tool, ['store', '--label', LABEL, ...attributes], { env, input: password, timeoutMs: TIMEOUT_MS })).code === 0,
    };
  }
  if (platform === 'darwin') {
    const tool = await find('security', env.PATH);
    if (tool === undefined) return undefined;
    const item = ['-s', SERVICE, '-a', ACCOUNT];
    return {
      name: 'the macOS keychain',
      lookup: async () => {
        const result = await run(tool, ['find-generic-password', ...item, '-w'], { env, timeoutMs: TIMEOUT_MS });
        return result.code === 0 && result.stdout !== '' ? withoutNewline(result.stdout) : undefined;
      },
      // `security` takes the password only as an argument (it prompts on a terminal otherwise), so it
      // is visible in the process list for the instant the command runs
      store: async (password) => (await run(tool, ['add-generic-password', '-U', ...item, '-l', LABEL, '-w', password], { env, timeoutMs: TIMEOUT_MS })).code === 0,
    };
  }
  return undefined;
}
