import { InvalidInputError } from '../../core/errors.js';
import { decodeListCursor, encodeListCursor } from '../../core/http/cursor.js';
import type { PageQuery, TimePosition } from './store.js';

/* Keyset pages of charges and usage events: newest first (event_time, then id, descending). */

export const DEFAULT_LIMIT = 50;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface PageRequest {
  cursor?: string | undefined;
  before?: string | undefined;
  limit?: number | undefined;
}

function positionOf(list: string, cursor: string, parameter: 'cursor' | 'before'): TimePosition {
  const [time = '', id = ''] = decodeListCursor(cursor, list, 2, parameter);
  const at = new Date(time);
  if (Number.isNaN(at.getTime()) || at.toISOString() !== time || !UUID.test(id)) throw new InvalidInputError(`${parameter}: not a cursor of this list; start again without one`);
  return { at, id };
}

/** The page a request asks for; `list` names the list inside its cursors, so another list's cursor is a 400. */
export function pageOf(list: string, request: PageRequest, maxLimit: number): PageQuery {
  if (request.cursor !== undefined && request.before !== undefined) throw new InvalidInputError('cursor and before: send one of them, not both');
  const limit = Math.min(request.limit ?? DEFAULT_LIMIT, maxLimit);
  if (request.cursor !== undefined) return { after: positionOf(list, request.cursor, 'cursor'), limit };
  if (request.before !== undefined) return { before: positionOf(list, request.before, 'before'), limit };
  return { limit };
}

/**
 * Reads one more row than the page holds to learn whether more lie beyond it; rows read backwards are
 * put back newest first. A page read from a position has rows on the side it came from.
 */
export async function readPage<Row extends { event_time: Date; id: string }>(
  list: string,
  page: PageQuery,
  read: (page: PageQuery) => Promise<Row[]>,
): Promise<{ rows: Row[]; next_cursor?: string; prev_cursor?: string }> {
  const found = await read({ ...page, limit: page.limit + 1 });
  const more = found.length > page.limit;
  const rows = page.before ? found.slice(0, page.limit).reverse() : found.slice(0, page.limit);
  const first = rows.at(0);
  const last = rows.at(-1);
  const encode = (row: Row) => encodeListCursor(list, [row.event_time.toISOString(), row.id]);
  const hasNext = page.before ? true : more;
  const hasPrev = page.before ? more : page.after !== undefined;
  return { rows, ...(hasNext && last && { next_cursor: encode(last) }), ...(hasPrev && first && { prev_cursor: encode(first) }) };
}
