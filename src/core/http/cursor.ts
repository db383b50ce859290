import { InvalidInputError } from '../errors.js';

/** Opaque keyset cursors: the sort key of the last item returned, as base64url JSON. */
export function encodeCursor(key: readonly string[]): string {
  return Buffer.from(JSON.stringify(key)).toString('base64url');
}

export function decodeCursor(cursor: string, width: number): string[] {
  let key: unknown;
  try {
    key = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    key = undefined;
  }
  if (!Array.isArray(key) || key.length !== width || !key.every((part) => typeof part === 'string')) {
    throw new InvalidInputError('cursor: not a cursor this server issued; start again without one');
  }
  return key;
}

/**
 * A cursor that names its list, so one list's cursor given to another is refused (400) rather than
 * read as a position it never was. `parameter` names the query parameter in the message.
 */
export function encodeListCursor(list: string, key: readonly string[]): string {
  return encodeCursor([list, ...key]);
}

export function decodeListCursor(cursor: string, list: string, width: number, parameter = 'cursor'): string[] {
  let key: string[];
  try {
    key = decodeCursor(cursor, width + 1);
  } catch {
    key = [];
  }
  if (key[0] !== list) throw new InvalidInputError(`${parameter}: not a cursor of this list; start again without one`);
  return key.slice(1);
}
