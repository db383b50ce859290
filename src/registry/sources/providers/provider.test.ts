import { describe, expect, it } from 'vitest';
import { CatalogFormatError } from './catalog-document.js';
import { catalogFromBytes, redact, sha256 } from './provider.js';

describe('catalogFromBytes', () => {
  const text = JSON.stringify([{ name: 'io.example/weather', version: '1.0.0' }]);

  it('fingerprints the bytes as they are, whether given as text or as a buffer', () => {
    expect(catalogFromBytes(text, 'a').fingerprint).toBe(sha256(text));
    expect(catalogFromBytes(Buffer.from(text), 'b').fingerprint).toBe(sha256(text));
    expect(catalogFromBytes(`${text}\n`, 'a').fingerprint).not.toBe(sha256(text));
  });

  it('parses only when asked', () => {
    const fetched = catalogFromBytes('{not json', 'x');
    expect(fetched.fingerprint).toBe(sha256('{not json'));
    expect(() => fetched.parse()).toThrow(CatalogFormatError);
  });

  it('names the origin and the position of invalid JSON without quoting the content', () => {
    const secretish = '{"servers": [], "token": "hunter2-do-not-show" oops}';
    let message = '';
    try {
      catalogFromBytes(secretish, 'catalog.json').parse();
    } catch (error) {
      expect(error).toBeInstanceOf(CatalogFormatError);
      message = (error as Error).message;
    }
    expect(message).toMatch(/^catalog\.json is not valid JSON/);
    expect(message).not.toContain('hunter2');
    expect(message).not.toContain('oops');
  });

  it('parses a valid document', () => {
    expect(catalogFromBytes(text, 'x').parse().records.map((record) => record.name)).toEqual(['io.example/weather']);
  });
});

describe('redact', () => {
  it('removes credentials from URLs and leaves the rest', () => {
    expect(redact('cannot fetch https://bob:s3cret@git.example.dev/repo.git: fatal')).toBe('cannot fetch https://***@git.example.dev/repo.git: fatal');
    expect(redact('https://ghp_token@github.com/a/b and http://u:p@h/x')).toBe('https://***@github.com/a/b and http://***@h/x');
    expect(redact('git@github.com:a/b.git https://example.dev/a@b')).toBe('git@github.com:a/b.git https://example.dev/a@b');
  });
});
