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
