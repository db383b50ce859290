import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { loadSecretKey, open, seal } from '../../src/platform/secrets/cipher.js';
import { tempFile } from './helpers.js';

const ID = '3f0c8b8e-8a4e-4c1e-9a57-2d3b7c1e0a11';
const OTHER = '3f0c8b8e-8a4e-4c1e-9a57-2d3b7c1e0a12';

describe('the managed secret key and cipher', () => {
  it('reads the base64 of 32 bytes, with or without a trailing newline', async () => {
    const bytes = randomBytes(32);
    for (const text of [bytes.toString('base64'), `${bytes.toString('base64')}\n`]) {
      const key = await loadSecretKey(await tempFile('secrets.key', text));
      expect(key.usable && key.key.equals(bytes)).toBe(true);
    }
  });

  it('names the key and what is wrong, never the content', async () => {
    const shortKey = randomBytes(16).toString('base64');
    for (const content of [shortKey, randomBytes(32).toString('hex'), randomBytes(32).toString('base64url'), '']) {
      const path = await tempFile('secrets.key', content);
      const key = await loadSecretKey(path);
      expect(key.usable).toBe(false);
      if (key.usable) continue;
      expect(key.problem).toBe(`secrets.keyFile (${path}) does not hold the base64 of 32 bytes (44 characters ending in "="); set it to a file holding the base64 of 32 random bytes (openssl rand -base64 32) and restart`);
      if (content !== '') expect(key.problem).not.toContain(content);
    }
  });

  it('opens only with the key, the id and the bytes it sealed with', () => {
    const key = randomBytes(32);
    const sealed = seal(key, ID, 'hunter2 ✓');
    expect(open(key, ID, sealed)).toBe('hunter2 ✓');
    expect(sealed.length).toBe(1 + 12 + 16 + Buffer.byteLength('hunter2 ✓'));
    expect(seal(key, ID, 'hunter2 ✓').equals(sealed)).toBe(false);
    expect(() => open(key, OTHER, sealed)).toThrow();
    expect(() => open(randomBytes(32), ID, sealed)).toThrow();
    const flipped = Buffer.from(sealed);
    flipped[flipped.length - 1] = (flipped.at(-1) ?? 0) ^ 1;
    expect(() => open(key, ID, flipped)).toThrow();
    expect(() => open(key, ID, sealed.subarray(0, 20))).toThrow();
  });
});
