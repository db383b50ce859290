import { describe, expect, it } from 'vitest';
import { createPageMemo } from './page-memo.js';
import type { Page } from './pages.js';
import type { TypeView } from './read-model.js';

const view = () => ({}) as TypeView;
const page = (): Page => ({ items: [] });

describe('page memo', () => {
  it('answers a query again from the page it computed, for the same view only', () => {
    const memo = createPageMemo();
    const first = view();
    let computed = 0;
    const compute = () => {
      computed += 1;
      return page();
    };
    const answer = memo(first, 'q', compute);
    expect(memo(first, 'q', compute)).toBe(answer);
    expect(computed).toBe(1);
    // a catalog change gives a new view: its pages are computed afresh
    expect(memo(view(), 'q', compute)).not.toBe(answer);
    expect(computed).toBe(2);
  });

  it('drops the least recently asked query when full', () => {
    const memo = createPageMemo(2);
    const only = view();
    const a = memo(only, 'a', page);
    const b = memo(only, 'b', page);
    memo(only, 'a', page);
    memo(only, 'c', page);
    expect(memo(only, 'a', page)).toBe(a);
    expect(memo(only, 'b', page)).not.toBe(b);
  });

  it('keeps nothing for a query that throws', () => {
    const memo = createPageMemo();
    const only = view();
    expect(() => memo(only, 'bad', () => { throw new Error('bad cursor'); })).toThrow('bad cursor');
    const later = page();
    expect(memo(only, 'bad', () => later)).toBe(later);
  });
});
