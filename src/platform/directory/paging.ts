import { InvalidInputError } from '../../core/errors.js';
import { decodeListCursor, encodeListCursor } from '../../core/http/cursor.js';
import type { Keyset } from './store.js';

export const DEFAULT_LIMIT = 50;
export const MAX_LIMIT = 200;

export interface PageRequest {
  /** Names the list inside its cursors, so a cursor of another list is a 400. */
  list: string;
  cursor?: string | undefined;
  before?: string | undefined;
  limit?: number | undefined;
  /** Parameter names for the messages. */
  names?: { cursor: string; before: string };
}

export function keysetOf(request: PageRequest): Keyset {
  const names = request.names ?? { cursor: 'cursor', before: 'before' };
  if (request.cursor !== undefined && request.before !== undefined) throw new InvalidInputError(`${names.cursor} and ${names.before}: send one of them, not both`);
  const limit = Math.min(request.limit ?? DEFAULT_LIMIT, MAX_LIMIT);
  const position = (cursor: string, parameter: string) => {
    const [key = '', id = ''] = decodeListCursor(cursor, request.list, 2, parameter);
    if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id)) throw new InvalidInputError(`${parameter}: not a cursor of this list; start again without one`);
    return [key, id] as const;
  };
  if (request.cursor !== undefined) return { after: position(request.cursor, names.cursor), limit };
  if (request.before !== undefined) return { before: position(request.before, names.before), limit };
  return { limit };
}

/**
 * The cursors of a page read with `page`: `more` says rows lie beyond it in the direction read; a page read
 * from a position always has rows on the side it came from.
 */
export function cursorsOf<T>(list: string, rows: readonly T[], page: Keyset, more: boolean, keyOf: (row: T) => [string, string]): { next?: string; prev?: string } {
  const first = rows.at(0);
  const last = rows.at(-1);
  const encode = (row: T) => encodeListCursor(list, keyOf(row));
  const hasNext = page.before ? rows.length > 0 : more;
  const hasPrev = page.before ? more : page.after !== undefined && rows.length > 0;
  return { ...(hasNext && last !== undefined && { next: encode(last) }), ...(hasPrev && first !== undefined && { prev: encode(first) }) };
}
