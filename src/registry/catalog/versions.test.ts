import { describe, expect, it } from 'vitest';
import { compareKeys, compareNewestFirst } from './versions.js';

const at = (version: string, iso = '2025-01-01T00:00:00Z') => ({ version, publishedAt: new Date(iso) });

describe('version order', () => {
  it('orders semver by precedence, not as text', () => {
    const sorted = [at('1.9.0'), at('1.10.0'), at('1.10.0-rc.1'), at('0.1.0')].sort(compareNewestFirst).map((v) => v.version);
    expect(sorted).toEqual(['1.10.0', '1.10.0-rc.1', '1.9.0', '0.1.0']);
  });

  it('ranks non-semver versions below semver ones, then by publish time', () => {
    const sorted = [at('auto', '2025-03-01T00:00:00Z'), at('0.0.1', '2025-01-01T00:00:00Z'), at('2.1', '2025-02-01T00:00:00Z')]
      .sort(compareNewestFirst)
      .map((v) => v.version);
    expect(sorted).toEqual(['0.0.1', 'auto', '2.1']);
  });

  it('compares keys byte-wise', () => {
    expect(compareKeys(['a', 'b'], ['a', 'c'])).toBeLessThan(0);
    expect(compareKeys(['B'], ['a'])).toBeLessThan(0);
    expect(compareKeys(['a', 'b'], ['a', 'b'])).toBe(0);
  });
});
