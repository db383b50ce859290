import { describe, expect, it } from 'vitest';
import { createKeyDeriver, decryptStore, encryptStore, newKdfHeader, parseStoreFile } from './cipher-file.js';
import { SecretsDamagedError, SecretsLockedError } from './errors.js';

const LOW_COST = { N: 2 ** 10, r: 8, p: 1 };

async function sealed(password: string, secrets: Record<string, string>) {
  const kdf = newKdfHeader(LOW_COST);
  const key = await createKeyDeriver().derive(password, kdf);
  return { kdf, key, text: encryptStore(new Map(Object.entries(secrets)), kdf, key) };
}

const edit = (text: string, change: (file: Record<string, unknown>) => void): string => {
  const file = JSON.parse(text) as Record<string, unknown>;
  change(file);
  return JSON.stringify(file);
};

describe('the encrypted store file', () => {
  it('round-trips the secrets map and holds no value in clear', async () => {
    const { key, text } = await sealed('correct horse', { github: 'ghp_plaintextvalue', __proto__x: 'v2' });
    expect(text).not.toContain('ghp_plaintextvalue');
    expect(text).not.toContain('github');
    const file = parseStoreFile(text);
    expect(file.kdf).toMatchObject({ name: 'scrypt', N: 1024, r: 8, p: 1 });
    expect(Buffer.from(file.kdf.salt, 'base64')).toHaveLength(16);
    expect(JSON.parse(text)).toMatchObject({ format: 'toolyard-secrets', version: 1, cipher: 'aes-256-gcm' });
    expect(Object.fromEntries(decryptStore(file, key))).toEqual({ github: 'ghp_plaintextvalue', __proto__x: 'v2' });
  });

  it('keeps a key named __proto__ as data', async () => {
    const kdf = newKdfHeader(LOW_COST);
    const key = await createKeyDeriver().derive('pw', kdf);
    const secrets = decryptStore(parseStoreFile(encryptStore(new Map([['__proto__', 'x']]), kdf, key)), key);
    expect([...secrets]).toEqual([['__proto__', 'x']]);
  });

  it('uses a fresh IV for each write with the same key', async () => {
    const { kdf, key } = await sealed('pw', {});
    const first = parseStoreFile(encryptStore(new Map([['a', '1']]), kdf, key));
    const second = parseStoreFile(encryptStore(new Map([['a', '1']]), kdf, key));
    expect(first.iv.equals(second.iv)).toBe(false);
    expect(first.ciphertext.equals(second.ciphertext)).toBe(false);
  });

  it('refuses a wrong password with a locked error, never an empty map', async () => {
    const { text } = await sealed('right password', { a: '1' });
    const file = parseStoreFile(text);
    const wrong = await createKeyDeriver().derive('wrong password', file.kdf);
    expect(() => decryptStore(file, wrong)).toThrow(SecretsLockedError);
    expect(() => decryptStore(file, wrong)).toThrow('the secrets store cannot be decrypted with the configured password');
  });

  it('detects a changed ciphertext, tag or header', async () => {
    const { key, text } = await sealed('pw', { a: '1' });
    const flipped = edit(text, (file) => {
      const bytes = Buffer.from(file.ciphertext as string, 'base64');
      bytes[0] = (bytes[0] ?? 0) ^ 1;
      file.ciphertext = bytes.toString('base64');
    });
    expect(() => decryptStore(parseStoreFile(flipped), key)).toThrow(SecretsLockedError);
    const otherTag = edit(text, (file) => {
      file.tag = Buffer.alloc(16).toString('base64');
    });
    expect(() => decryptStore(parseStoreFile(otherTag), key)).toThrow(SecretsLockedError);
    // the same key with another header: the header is authenticated too
    const otherHeader = parseStoreFile(edit(text, (file) => {
      (file.kdf as { p: number }).p = 2;
    }));
    expect(() => decryptStore(otherHeader, key)).toThrow(SecretsLockedError);
  });

  it('reports a damaged or foreign file as damaged, naming what is wrong', async () => {
    const { text } = await sealed('pw', {});
    expect(() => parseStoreFile('{"format": "toolyard-secr')).toThrow(SecretsDamagedError);
    expect(() => parseStoreFile('{"format": "toolyard-secr')).toThrow('not JSON');
    expect(() => parseStoreFile('{"hello": 1}')).toThrow('not a Toolyard secrets file');
    expect(() => parseStoreFile(edit(text, (file) => (file.version = 9)))).toThrow('unsupported version 9');
    expect(() => parseStoreFile(edit(text, (file) => (file.iv = 'AAAA')))).toThrow('iv must be 12 bytes');
    expect(() => parseStoreFile(edit(text, (file) => ((file.kdf as { N: number }).N = 2 ** 30)))).toThrow('kdf.N must be an integer');
    expect(() => parseStoreFile(edit(text, (file) => ((file.kdf as { N: number }).N = 3000)))).toThrow('kdf.N must be a power of two');
    expect(() => parseStoreFile(edit(text, (file) => ((file.kdf as { name: string }).name = 'pbkdf2')))).toThrow('expected scrypt');
  });
});

describe('the key deriver', () => {
  it('derives once per salt and password and answers the same key after', async () => {
    const deriver = createKeyDeriver();
    const kdf = newKdfHeader(LOW_COST);
    const first = await deriver.derive('pw', kdf);
    expect(await deriver.derive('pw', kdf)).toBe(first);
    expect((await deriver.derive('pw', newKdfHeader(LOW_COST))).equals(first)).toBe(false);
    expect((await deriver.derive('other', kdf)).equals(first)).toBe(false);
    expect(first).toHaveLength(32);
  });
});
