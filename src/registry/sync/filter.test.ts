import { describe, expect, it } from 'vitest';
import { createEntryFilter, globToRegExp } from './filter.js';

const empty = { include: [], exclude: [] };

describe('name globs', () => {
  it('lets * match any run of characters, slashes included', () => {
    expect(globToRegExp('io.github.*/*').test('io.github.acme/tools')).toBe(true);
    expect(globToRegExp('io.github.*').test('io.github.acme/tools')).toBe(true);
    expect(globToRegExp('*/deprecated-*').test('com.x/deprecated-thing')).toBe(true);
    expect(globToRegExp('com.x/a').test('com.x/ab')).toBe(false);
  });

  it('treats regex characters literally', () => {
    expect(globToRegExp('io.github.a/b').test('ioXgithubXa/b')).toBe(false);
    expect(globToRegExp('a+b/(c)').test('a+b/(c)')).toBe(true);
  });
});

describe('entry filter', () => {
  it('keeps everything with empty lists', () => {
    expect(createEntryFilter({ names: empty, tags: empty })({ name: 'a/b', tags: [] })).toBe(true);
  });

  it('lets exclude beat include', () => {
    const keep = createEntryFilter({ names: { include: ['io.github.*/*'], exclude: ['*/deprecated-*'] }, tags: empty });
    expect(keep({ name: 'io.github.x/tool', tags: [] })).toBe(true);
    expect(keep({ name: 'io.github.x/deprecated-tool', tags: [] })).toBe(false);
    expect(keep({ name: 'com.other/tool', tags: [] })).toBe(false);
  });

  it('filters by tags, excluding untagged entries when an include list is set', () => {
    const keep = createEntryFilter({ names: empty, tags: { include: ['db'], exclude: ['beta'] } });
    expect(keep({ name: 'a/b', tags: ['db'] })).toBe(true);
    expect(keep({ name: 'a/b', tags: ['db', 'beta'] })).toBe(false);
    expect(keep({ name: 'a/b', tags: [] })).toBe(false);
    expect(createEntryFilter({ names: empty, tags: { include: [], exclude: ['beta'] } })({ name: 'a/b', tags: [] })).toBe(true);
  });
});
