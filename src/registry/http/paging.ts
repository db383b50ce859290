/** One page of a list: the items, and the cursor of the next page when there is one. */
export interface Page<T> {
  items: T[];
  nextCursor: string | undefined;
}

/** `found` holds up to limit + 1 items: the extra one only says that another page follows. */
export function pageOf<T>(found: T[], limit: number, cursorOf: (last: T) => string): Page<T> {
  const items = found.slice(0, limit);
  const last = items.at(-1);
  return { items, nextCursor: found.length > limit && last !== undefined ? cursorOf(last) : undefined };
}
