import { parse } from 'smol-toml';
import { InvalidInputError } from '../../../core/errors.js';
import { applyOneByOne, lineEnding, type ConfigFormat, type Entry, type ServerEntries } from './format.js';

interface Table {
  /** The dotted key of a `[table]` header; undefined for `[[arrays]]` and headers this reader cannot split. */
  path: string[] | undefined;
  start: number;
  /** End of its last line of content: trailing blank and comment lines belong to whatever follows. */
  end: number;
}

/**
 * The key path of a `[table]` header line, read by smol-toml so that quoted keys follow TOML's rules
 * (every escape of basic strings, literal strings, dotted keys): the line alone is a document whose
 * only content is that table, nested one level per key.
 */
function headerPath(line: string): string[] | undefined {
  let node: unknown;
  try {
    node = parse(line.replace(/\r$/, ''));
  } catch {
    return undefined;
  }
  const path: string[] = [];
  for (;;) {
    if (typeof node !== 'object' || node === null || Array.isArray(node)) return undefined;
    const keys = Object.keys(node);
    if (keys.length === 0) return path;
    const [key] = keys;
    if (keys.length > 1 || key === undefined) return undefined;
    path.push(key);
    node = (node as Record<string, unknown>)[key];
  }
}

const isContent = (line: string): boolean => line.trim() !== '' && !line.trim().startsWith('#');

/** The table headers at line starts, skipping lines inside multi-line strings. */
function tables(text: string): Table[] {
  const found: Table[] = [];
  let multiline: string | undefined;
  let offset = 0;
  let lastContentEnd = 0;
  for (const line of text.split('\n')) {
    const lineEnd = Math.min(offset + line.length + 1, text.length);
    if (multiline === undefined && /^[ \t]*\[/.test(line)) {
      const previous = found.at(-1);
      if (previous) previous.end = Math.max(previous.start, lastContentEnd);
      found.push({ path: /^[ \t]*\[\[/.test(line) ? undefined : headerPath(line), start: offset, end: lineEnd });
      lastContentEnd = lineEnd;
    } else if (multiline !== undefined || isContent(line)) {
      lastContentEnd = lineEnd;
    }
    for (const quote of ['"""', "'''"]) {
      if (multiline !== undefined && multiline !== quote) continue;
      if (line.split(quote).length % 2 === 0) multiline = multiline === undefined ? quote : undefined;
    }
    offset += line.length + 1;
  }
  const last = found.at(-1);
  if (last) last.end = Math.max(last.start, lastContentEnd);
  return found;
}

const bareKey = (key: string): string => (/^[A-Za-z0-9_-]+$/.test(key) ? key : JSON.stringify(key));

function tomlValue(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value).replace(/\u007f/g, '\\u007F');
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return `[${value.map(tomlValue).join(', ')}]`;
  if (typeof value === 'object' && value !== null) {
    return `{ ${Object.entries(value).map(([key, item]) => `${bareKey(key)} = ${tomlValue(item)}`).join(', ')} }`;
  }
  throw new InvalidInputError(`cannot write ${typeof value} to TOML`);
}

const startsWith = (path: string[] | undefined, prefix: string[]): boolean => path !== undefined && prefix.every((part, index) => path[index] === part);

/**
 * TOML configuration (Codex) edited by whole `[key.<name>]` tables: a new table is appended after a
 * blank line, and removing it takes out the table and that blank line, so comments and every other
 * table stay byte for byte. smol-toml only parses; the text is never re-serialized.
 */
export function tomlFormat(key: string): ConfigFormat {
  const read = (text: string): ServerEntries => {
    let document: Record<string, unknown>;
    try {
      document = parse(text);
    } catch (error) {
      throw new InvalidInputError(`not valid TOML: ${(error as Error).message.split('\n')[0] ?? ''}`);
    }
    const servers = document[key];
    if (servers !== undefined && (typeof servers !== 'object' || servers === null || Array.isArray(servers))) throw new InvalidInputError(`"${key}" is not a table`);
    return { entries: new Map(Object.entries(servers ?? {})), hasContainer: servers !== undefined };
  };

  const block = (text: string, name: string, entry: Entry): string => {
    const eol = lineEnding(text);
    return [`[${key}.${bareKey(name)}]`, ...Object.entries(entry).map(([field, value]) => `${bareKey(field)} = ${tomlValue(value)}`)].map((line) => `${line}${eol}`).join('');
  };

  const edits = {
    read,
    set: (text: string, name: string, entry: Entry, exists: boolean): string => {
      if (!exists) {
        const eol = lineEnding(text);
        const separator = text === '' ? '' : text.endsWith('\n') ? eol : `${eol}${eol}`;
        return `${text}${separator}${block(text, name, entry)}`;
      }
      const table = tables(text).find((candidate) => candidate.path?.length === 2 && startsWith(candidate.path, [key, name]));
      if (!table) throw new InvalidInputError(`${key}.${name} is not written as a [${key}.${name}] table`);
      return text.slice(0, table.start) + block(text, name, entry) + text.slice(table.end);
    },
    remove: (text: string, name: string): string => {
      let out = text;
      const owned = tables(text).filter((table) => startsWith(table.path, [key, name]));
      if (owned.length === 0) throw new InvalidInputError(`${key}.${name} is not written as a [${key}.${name}] table`);
      for (const table of owned.reverse()) {
        let { start, end } = table;
        const before = out.slice(0, start);
        if (/\r?\n\r?\n$/.test(before)) start -= before.endsWith('\r\n') ? 2 : 1;
        else if (before.trim() === '') end += /^\r?\n/.exec(out.slice(end))?.[0].length ?? 0;
        out = out.slice(0, start) + out.slice(end);
      }
      return out;
    },
    removeContainer: (text: string): string => text,
  };
  return { read, apply: (text, changes) => applyOneByOne(text, changes, edits) };
}
