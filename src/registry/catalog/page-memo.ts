import type { Page } from './pages.js';
import type { TypeView } from './read-model.js';

/** Pages kept per type view: the pages callers ask for again and again (first pages, popular searches). */
const PAGES_PER_VIEW = 128;

export type PageMemo = (view: TypeView, query: string, compute: () => Page) => Page;

/**
 * Pages already answered, by type view and query. A view is never changed: the read model builds a new
 * one when its catalog changes, so a page stays true for as long as its view lives and goes with it.
 * Only answers are kept; a query that throws (a bad cursor) is computed, and refused, every time.
 */
export function createPageMemo(limit = PAGES_PER_VIEW): PageMemo {
  const byView = new WeakMap<TypeView, Map<string, Page>>();
  return (view, query, compute) => {
    let pages = byView.get(view);
    if (!pages) {
      pages = new Map();
      byView.set(view, pages);
    }
    const known = pages.get(query);
    if (known) {
      // least recently asked first in the map: the one dropped when it is full
      pages.delete(query);
      pages.set(query, known);
      return known;
    }
    const page = compute();
    pages.set(query, page);
    if (pages.size > limit) pages.delete(pages.keys().next().value as string);
    return page;
  };
}
