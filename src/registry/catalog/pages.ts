import { decodeCursor, encodeCursor } from '../../core/http/cursor.js';
import type { EntryView } from './entry-view.js';
import { compareKeys } from './versions.js';

export interface Page {
  items: EntryView[];
  nextCursor?: string;
}

export interface PageQuery {
  cursor?: string | undefined;
  limit: number;
}

/** First position in a list ordered by (name, version) whose entry comes after `key`. */
function after(list: EntryView[], key: readonly string[]): number {
  let low = 0;
  let high = list.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    const entry = list[middle] as EntryView;
    if (compareKeys([entry.name, entry.version], key) <= 0) low = middle + 1;
    else high = middle;
  }
  return low;
}

/** First position of `name` in a list ordered by (name, version). */
function firstOf(list: EntryView[], name: string): number {
  let low = 0;
  let high = list.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((list[middle] as EntryView).name < name) low = middle + 1;
    else high = middle;
  }
  return low;
}

/** Collects kept entries until one more than the limit says that another page follows. */
function collector(limit: number): { add(entry: EntryView): boolean; page(): Page } {
  const items: EntryView[] = [];
  let more = false;
  return {
    add(entry) {
      if (items.length === limit) more = true;
      else items.push(entry);
      return more;
    },
    page() {
      const last = items[items.length - 1];
      return more && last ? { items, nextCursor: encodeCursor([last.name, last.version]) } : { items };
    },
  };
}

/**
 * Keyset pagination over a list ordered by (name, version): the cursor is the key of the last item
 * returned, so concurrent inserts and deletes never shift or repeat the items of later pages.
 */
export function scanPage(list: EntryView[], query: PageQuery, keep: (entry: EntryView) => boolean): Page {
  const start = query.cursor === undefined ? 0 : after(list, decodeCursor(query.cursor, 2));
  const found = collector(query.limit);
  for (let index = start; index < list.length; index++) {
    const entry = list[index] as EntryView;
    if (keep(entry) && found.add(entry)) break;
  }
  return found.page();
}

/**
 * The same page as `scanPage`, visiting only the entries of `names`: the names, in list order, that
 * a search index says may match (a superset of those `keep` accepts), given the cursor's name.
 */
export function indexedPage(list: EntryView[], query: PageQuery, keep: (entry: EntryView) => boolean, names: (from: string) => Iterable<string>): Page {
  const cursor = query.cursor === undefined ? undefined : decodeCursor(query.cursor, 2);
  const found = collector(query.limit);
  for (const name of names(cursor?.[0] ?? '')) {
    for (let index = firstOf(list, name); index < list.length; index++) {
      const entry = list[index] as EntryView;
      if (entry.name !== name) break;
      if (cursor !== undefined && compareKeys([entry.name, entry.version], cursor) <= 0) continue;
      if (keep(entry) && found.add(entry)) return found.page();
    }
  }
  return found.page();
}
