import { chmod, mkdtemp, readFile, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { findKeyring, type Keyring } from './keyring.js';
import { createPasswordSource } from './password.js';
import { runProcess, type ProcessOptions, type ProcessRunner } from './process.js';

/** A keyring held in memory; `accepts: false` is one that refuses to store (locked, no daemon). */
function memoryKeyring(initial?: string, accepts = true): Keyring & { value: string | undefined } {
  const keyring = {
    name: 'memory',
    value: initial,
    lookup: () => Promise.resolve(keyring.value),
    store: (password: string) => {
      if (accepts) keyring.value = password;
      return Promise.resolve(accepts);
    },
  };
  return keyring;
}

describe('the password source', () => {
  let keyFile: string;
  beforeEach(async () => {
    keyFile = join(await mkdtemp(join(tmpdir(), 'toolyard-password-')), 'secrets.key');
  });
  const source = (env: Record<string, string>, keyring?: Keyring) => createPasswordSource({ env, keyFile, keyring: () => Promise.resolve(keyring) });

  it('takes the keyring first, then TOOLYARD_SECRETS_PASSWORD, then the key file', async () => {
    await writeFile(keyFile, 'from-the-file\n');
    expect(await source({ TOOLYARD_SECRETS_PASSWORD: 'from-env' }, memoryKeyring('from-keyring')).current()).toEqual({ password: 'from-keyring', origin: 'keyring' });
    expect(await source({ TOOLYARD_SECRETS_PASSWORD: 'from-env' }, memoryKeyring()).current()).toEqual({ password: 'from-env', origin: 'environment' });
    expect(await source({ TOOLYARD_SECRETS_PASSWORD: '' }, memoryKeyring()).current()).toEqual({ password: 'from-the-file', origin: 'key file' });
    expect(await createPasswordSource({ env: {}, keyFile: `${keyFile}.none`, keyring: () => Promise.resolve(undefined) }).current()).toBeUndefined();
  });

  it('keeps a new random password in the keyring when it accepts one, else in a 0600 key file', async () => {
    const keyring = memoryKeyring();
    const stored = await source({}, keyring).establish();
    expect(keyring.value).toBe(stored);
    await expect(stat(keyFile)).rejects.toThrow('ENOENT');

    const written = await source({}, memoryKeyring(undefined, false)).establish();
    expect(Buffer.from(written, 'base64')).toHaveLength(32);
    expect((await readFile(keyFile, 'utf8')).trim()).toBe(written);
    expect((await stat(keyFile)).mode & 0o777).toBe(0o600);
    expect(await source({}).establish()).toBe(written);
  });

  it('refuses to save a password that TOOLYARD_SECRETS_PASSWORD would override', async () => {
    await expect(source({ TOOLYARD_SECRETS_PASSWORD: 'from-env' }).save('another one')).rejects.toThrow('TOOLYARD_SECRETS_PASSWORD is set');
    expect(await source({ TOOLYARD_SECRETS_PASSWORD: 'from-env' }).save('from-env')).toBe('environment');
    expect(await source({ TOOLYARD_SECRETS_PASSWORD: 'from-env' }, memoryKeyring()).save('another one')).toBe('keyring');
    expect(await source({}).save('the chosen one')).toBe('key file');
    expect((await readFile(keyFile, 'utf8')).trim()).toBe('the chosen one');
  });
});

describe('the OS keyring', () => {
  const calls: { file: string; args: readonly string[]; input: string | undefined }[] = [];
  const fakeRun = (stdout: string, code = 0): ProcessRunner => (file, args, options: ProcessOptions) => {
    calls.push({ file, args, input: options.input });
    return Promise.resolve({ code, stdout, stderr: '' });
  };
  const found = (name: string) => Promise.resolve(`/usr/bin/${name}`);
  beforeEach(() => {
    calls.length = 0;
  });

  it('is the Secret Service through secret-tool on Linux, the password on stdin, never in arguments', async () => {
    const env = { DBUS_SESSION_BUS_ADDRESS: 'unix:path=/run/user/1000/bus' };
    const keyring = await findKeyring({ env, platform: 'linux', run: fakeRun('s3cret\n'), findExecutable: found });
    expect(await keyring?.lookup()).toBe('s3cret');
    expect(await keyring?.store('n3w-s3cret')).toBe(true);
    expect(calls).toEqual([
      { file: '/usr/bin/secret-tool', args: ['lookup', 'service', 'toolyard', 'account', 'secrets'], input: undefined },
      { file: '/usr/bin/secret-tool', args: ['store', '--label', 'Toolyard secrets', 'service', 'toolyard', 'account', 'secrets'], input: 'n3w-s3cret' },
    ]);
  });

  it('is not reachable on Linux without a session bus or without secret-tool', async () => {
    expect(await findKeyring({ env: {}, platform: 'linux', run: fakeRun(''), findExecutable: found })).toBeUndefined();
    const noTool = () => Promise.resolve(undefined);
    expect(await findKeyring({ env: { DBUS_SESSION_BUS_ADDRESS: 'unix:x' }, platform: 'linux', run: fakeRun(''), findExecutable: noTool })).toBeUndefined();
    expect(await findKeyring({ env: {}, platform: 'win32', run: fakeRun(''), findExecutable: found })).toBeUndefined();
    expect(calls).toEqual([]);
  });

  it('answers no password when the keyring lookup fails', async () => {
    const keyring = await findKeyring({ env: { DBUS_SESSION_BUS_ADDRESS: 'unix:x' }, platform: 'linux', run: fakeRun('', 1), findExecutable: found });
    expect(await keyring?.lookup()).toBeUndefined();
    expect(await keyring?.store('x')).toBe(false);
  });

  it('is the login keychain through security on macOS', async () => {
    const keyring = await findKeyring({ env: {}, platform: 'darwin', run: fakeRun('from-keychain\n'), findExecutable: found });
    expect(await keyring?.lookup()).toBe('from-keychain');
    await keyring?.store('n3w');
    expect(calls.map((call) => [call.file, ...call.args])).toEqual([
      ['/usr/bin/security', 'find-generic-password', '-s', 'toolyard', '-a', 'secrets', '-w'],
      ['/usr/bin/security', 'add-generic-password', '-U', '-s', 'toolyard', '-a', 'secrets', '-l', 'Toolyard secrets', '-w', 'n3w'],
    ]);
  });

  it('stores and finds a password through a fake secret-tool executable script on PATH', async () => {
    const bin = await mkdtemp(join(tmpdir(), 'toolyard-bin-'));
    const script = join(bin, 'secret-tool');
    await writeFile(
      script,
      ['#!/bin/sh', `store="${bin}/stored"`, 'case "$1" in', '  store) cat > "$store" ;;', '  lookup) [ -f "$store" ] || exit 1; cat "$store" ;;', 'esac', ''].join('\n'),
    );
    await chmod(script, 0o755);
    const env = { PATH: `${bin}:/usr/bin:/bin`, DBUS_SESSION_BUS_ADDRESS: 'unix:x' };
    const keyring = await findKeyring({ env, platform: 'linux', run: runProcess });
    expect(await keyring?.lookup()).toBeUndefined();
    expect(await keyring?.store('a password with spaces')).toBe(true);
    expect(await keyring?.lookup()).toBe('a password with spaces');
  });
});
