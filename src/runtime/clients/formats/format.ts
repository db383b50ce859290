import { canonicalJson } from '../../../core/canonical-json.js';

/** A server entry as the client documents it: plain JSON-compatible data. */
export type Entry = Record<string, unknown>;

export interface ServerEntries {
  /** The servers in the file, by name, as parsed data. */
  entries: Map<string, unknown>;
  /** Whether the key that holds the servers (`mcpServers`, `extensions`, ...) is in the file at all. */
  hasContainer: boolean;
}

export interface ConfigChanges {
  /** Entries to add or replace, in the order they are to be written. */
  set: ReadonlyMap<string, Entry>;
  remove: readonly string[];
  /** Remove the servers key when it is left empty: Toolyard added it, so it takes it away again. */
  dropEmptyContainer: boolean;
}

/**
 * One configuration file syntax and where in it the servers live. `apply` edits the text in place
 * so every byte outside the touched entries stays as the user wrote it; it throws on a file it cannot
 * edit safely rather than rewrite it.
 */
export interface ConfigFormat {
  read: (text: string) => ServerEntries;
  apply: (text: string, changes: ConfigChanges) => string;
}

export const sameValue = (a: unknown, b: unknown): boolean => canonicalJson(a) === canonicalJson(b);

/** The line ending the file already uses, so inserted lines match it. */
export const lineEnding = (text: string): string => (text.includes('\r\n') ? '\r\n' : '\n');

/** Offset just past the end of the line holding `offset` (past its newline, or the end of the text). */
export function endOfLine(text: string, offset: number): number {
  if (offset > 0 && text[offset - 1] === '\n') return offset;
  const newline = text.indexOf('\n', offset);
  return newline === -1 ? text.length : newline + 1;
}

export const startOfLine = (text: string, offset: number): number => text.lastIndexOf('\n', offset - 1) + 1;

/** Runs single-entry edits one after the other, re-reading between them; shared by the text formats. */
export function applyOneByOne(
  text: string,
  changes: ConfigChanges,
  edits: {
    read: (text: string) => ServerEntries;
    set: (text: string, name: string, entry: Entry, exists: boolean) => string;
    remove: (text: string, name: string) => string;
    removeContainer: (text: string) => string;
  },
): string {
  let out = text;
  for (const name of changes.remove) if (edits.read(out).entries.has(name)) out = edits.remove(out, name);
  for (const [name, entry] of changes.set) out = edits.set(out, name, entry, edits.read(out).entries.has(name));
  if (changes.dropEmptyContainer) {
    const after = edits.read(out);
    if (after.hasContainer && after.entries.size === 0) out = edits.removeContainer(out);
  }
  return out;
}
