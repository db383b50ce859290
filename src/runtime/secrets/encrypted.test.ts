import { mkdir, mkdtemp, readFile, readdir, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { createKeyDeriver } from './cipher-file.js';
import { createEncryptedProvider } from './encrypted.js';
import { SecretsDamagedError, SecretsLockedError } from './errors.js';
import { createPasswordSource } from './password.js';

const LOW_COST = { N: 2 ** 10, r: 8, p: 1 };

describe('the encrypted provider', () => {
  let dir: string;
  let file: string;
  let keyFile: string;
  /** A provider with no keyring, the password from the variable when given, else from the key file. */
  const provider = (password?: string) =>
    createEncryptedProvider({
      file,
      passwords: createPasswordSource({ env: { TOOLYARD_SECRETS_PASSWORD: password }, keyFile, keyring: () => Promise.resolve(undefined) }),
      deriver: createKeyDeriver(),
      scrypt: LOW_COST,
    });

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'toolyard-secrets-'));
    file = join(dir, 'data', 'secrets.enc');
    keyFile = join(dir, 'config', 'secrets.key');
    await mkdir(join(dir, 'config'));
  });

  it('creates, reads, lists, updates and deletes secrets in one 0600 file without the values in clear', async () => {
    const secrets = provider('a long password');
    expect(await secrets.list()).toEqual([]);
    expect(await secrets.get('github')).toBeUndefined();

    await secrets.set('github', 'ghp_cleartext', 'new');
    await secrets.set('api', 'sk-cleartext', 'new');
    expect(await secrets.get('github')).toBe('ghp_cleartext');
    expect(await secrets.list()).toEqual(['api', 'github']);
    await expect(secrets.set('github', 'other', 'new')).rejects.toThrow('secret "github" already exists');
    await expect(secrets.set('missing', 'x', 'existing')).rejects.toThrow('secret "missing" not found');
    await secrets.set('github', 'ghp_rotated', 'existing');
    expect(await secrets.get('github')).toBe('ghp_rotated');
    await secrets.delete('api');
    await expect(secrets.delete('api')).rejects.toThrow('secret "api" not found');
    expect(await secrets.list()).toEqual(['github']);

    const text = await readFile(file, 'utf8');
    expect(text).not.toContain('cleartext');
    expect(text).not.toContain('rotated');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(await readdir(join(dir, 'data'))).toEqual(['secrets.enc']);
    expect(await provider('a long password').get('github')).toBe('ghp_rotated');
  });

  it('writes a new IV each time and keeps the salt of the password', async () => {
    const secrets = provider('a long password');
    await secrets.set('a', '1', 'new');
    const first = JSON.parse(await readFile(file, 'utf8')) as { iv: string; kdf: { salt: string } };
    await secrets.set('b', '2', 'new');
    const second = JSON.parse(await readFile(file, 'utf8')) as { iv: string; kdf: { salt: string } };
    expect(second.iv).not.toBe(first.iv);
    expect(second.kdf.salt).toBe(first.kdf.salt);
  });

  it('keeps every write of two writers at once (one lock for all)', async () => {
    const one = provider('a long password');
    const two = provider('a long password');
    await Promise.all(Array.from({ length: 10 }, (_, index) => (index % 2 === 0 ? one : two).set(`key-${String(index)}`, String(index), 'new')));
    expect(await one.list()).toHaveLength(10);
    expect(await readdir(join(dir, 'data'))).toEqual(['secrets.enc']);
  });

  it('answers a wrong password with a locked error on every operation and leaves the file as it was', async () => {
    await provider('the right password').set('github', 'ghp_value', 'new');
    const before = await readFile(file, 'utf8');
    const wrong = provider('a wrong password');
    await expect(wrong.get('github')).rejects.toThrow(SecretsLockedError);
    await expect(wrong.list()).rejects.toThrow('the secrets store cannot be decrypted with the configured password');
    await expect(wrong.set('other', 'x', 'new')).rejects.toThrow(SecretsLockedError);
    await expect(wrong.delete('github')).rejects.toThrow(SecretsLockedError);
    await expect(wrong.setup()).rejects.toThrow(SecretsLockedError);
    expect(await readFile(file, 'utf8')).toBe(before);
  });

  it('answers a store with no password anywhere as locked, not empty', async () => {
    await provider('the right password').set('github', 'ghp_value', 'new');
    await expect(provider().list()).rejects.toThrow('no password is configured');
  });

  it('reports a tampered file as locked and a damaged one as damaged', async () => {
    await provider('pw-123456').set('github', 'ghp_value', 'new');
    const file_ = JSON.parse(await readFile(file, 'utf8')) as { ciphertext: string };
    const bytes = Buffer.from(file_.ciphertext, 'base64');
    bytes[3] = (bytes[3] ?? 0) ^ 0xff;
    await writeFile(file, JSON.stringify({ ...file_, ciphertext: bytes.toString('base64') }));
    await expect(provider('pw-123456').get('github')).rejects.toThrow(SecretsLockedError);
    await writeFile(file, 'garbage');
    await expect(provider('pw-123456').list()).rejects.toThrow(SecretsDamagedError);
    await expect(provider('pw-123456').set('x', 'y', 'new')).rejects.toThrow(SecretsDamagedError);
  });

  it('creates a random key file (0600) on first use when no password is configured', async () => {
    const secrets = provider();
    await secrets.set('github', 'ghp_value', 'new');
    const key = (await readFile(keyFile, 'utf8')).trim();
    expect(Buffer.from(key, 'base64')).toHaveLength(32);
    expect((await stat(keyFile)).mode & 0o777).toBe(0o600);
    expect(await provider().get('github')).toBe('ghp_value');
  });

  it('does not create a key file for a read', async () => {
    expect(await provider().list()).toEqual([]);
    await expect(stat(keyFile)).rejects.toThrow('ENOENT');
  });

  it('re-encrypts the store with a password given at setup, keeping the secrets', async () => {
    await provider().set('github', 'ghp_value', 'new');
    expect(await provider().setup('a new password')).toBe('key file');
    expect((await readFile(keyFile, 'utf8')).trim()).toBe('a new password');
    expect(await provider('a new password').get('github')).toBe('ghp_value');
  });

  it('accepts at setup the password that opens the store when the configured one does not', async () => {
    await provider('the old password').set('github', 'ghp_value', 'new');
    await writeFile(keyFile, 'a lost password\n');
    await expect(provider().get('github')).rejects.toThrow(SecretsLockedError);
    await provider().setup('the old password');
    expect(await provider().get('github')).toBe('ghp_value');
  });

  it('refuses at setup a password that does not open the store either, changing nothing', async () => {
    await provider('the old password').set('github', 'ghp_value', 'new');
    await writeFile(keyFile, 'a lost password\n');
    const before = await readFile(file, 'utf8');
    await expect(provider().setup('another guess')).rejects.toThrow(SecretsLockedError);
    expect(await readFile(file, 'utf8')).toBe(before);
    expect((await readFile(keyFile, 'utf8')).trim()).toBe('a lost password');
  });
});
