import { describe, expect, it } from 'vitest';
import { createPublicPathMatcher } from './bearer.js';

describe('public path matching', () => {
  const isPublic = createPublicPathMatcher(['/health', '/.well-known', '/custom/public']);

  it('matches whole segments and everything below', () => {
    expect(isPublic('/health')).toBe(true);
    expect(isPublic('/health?verbose=1')).toBe(true);
    expect(isPublic('/.well-known/oauth-protected-resource')).toBe(true);
    expect(isPublic('/custom/public/')).toBe(true);
    expect(isPublic('/custom/public/deeper/page')).toBe(true);
    expect(isPublic('/custom/publicity')).toBe(false);
    expect(isPublic('/healthz')).toBe(false);
    expect(isPublic('/v1/sources')).toBe(false);
  });

  it('never lets dot segments or encoded separators widen a public prefix', () => {
    for (const trick of [
      '/custom/public/../../v1/sources',
      '/custom/public/%2e%2e/%2e%2e/v1/sources',
      '/custom/public%2F..%2F..%2Fv1%2Fsources',
      '/custom/public/..%2f..%2fv1/sources',
      '/health/..',
      '/.well-known/%2E%2E/v1/me',
      '/custom/public/.%2e/v1/sources',
      '/custom/public\\..\\v1',
    ]) {
      expect(isPublic(trick), trick).toBe(false);
    }
  });
});
