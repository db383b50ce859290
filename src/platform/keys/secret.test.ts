import { describe, expect, it } from 'vitest';
import { generateSecret, hashSecret, looksLikeSecret, prefixOf } from './secret.js';

describe('key secrets', () => {
  it('are tyk_ and 43 base62 characters, different every time', () => {
    const secrets = Array.from({ length: 200 }, generateSecret);
    for (const secret of secrets) {
      expect(secret).toMatch(/^tyk_[0-9A-Za-z]{43}$/);
      expect(looksLikeSecret(secret)).toBe(true);
    }
    expect(new Set(secrets).size).toBe(secrets.length);
  });

  it('are stored as their SHA-256 hex and shown by their first 12 characters', () => {
    // the SHA-256 test vector of FIPS 180-2
    expect(hashSecret('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(prefixOf('tyk_0123456789abcdef')).toBe('tyk_01234567');
    expect(looksLikeSecret('tyk_short')).toBe(false);
    expect(looksLikeSecret('eyJhbGciOi.e30.sig')).toBe(false);
  });
});
