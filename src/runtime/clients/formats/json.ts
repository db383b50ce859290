import { getNodeValue, parseTree, printParseErrorCode, type Node, type ParseError } from 'jsonc-parser';
import { InvalidInputError } from '../../../core/errors.js';
import { applyOneByOne, lineEnding, type ConfigFormat, type Entry, type ServerEntries } from './format.js';

const PARSE_OPTIONS = { allowTrailingComma: true, disallowComments: false, allowEmptyContent: true };

const blank = (text: string): boolean => text.trim() === '';
const end = (node: Node): number => node.offset + node.length;

function parseRoot(text: string): Node {
  const errors: ParseError[] = [];
  const root = parseTree(text, errors, PARSE_OPTIONS);
  const first = errors[0];
  if (first) throw new InvalidInputError(`not valid JSON: ${printParseErrorCode(first.error)} at offset ${String(first.offset)}`);
  if (root?.type !== 'object') throw new InvalidInputError('not a JSON object at the top level');
  return root;
}

/** The last property of that name wins, as in every JSON reader. */
const property = (object: Node, name: string): Node | undefined => object.children?.findLast((child) => child.children?.[0]?.value === name);

function container(root: Node, key: string): Node | undefined {
  const value = property(root, key)?.children?.[1];
  if (value !== undefined && value.type !== 'object') throw new InvalidInputError(`"${key}" is not an object`);
  return value;
}

/** The whitespace that starts the line holding `offset`. */
function lineIndent(text: string, offset: number): string {
  const start = text.lastIndexOf('\n', offset - 1) + 1;
  return /^[ \t]*/.exec(text.slice(start))?.[0] ?? '';
}

/** The indentation step the file uses, taken from its first indented line; two spaces for a new file. */
const indentUnit = (text: string): string => /\n([ \t]+)\S/.exec(text)?.[1] ?? '  ';

/** Pretty JSON with the file's indentation; an array of plain values stays on one line, as people write them. */
function pretty(value: unknown, unit: string, eol: string, indent: string): string {
  if (Array.isArray(value) && value.every((item) => item === null || typeof item !== 'object')) return `[${value.map((item) => JSON.stringify(item)).join(', ')}]`;
  if (typeof value !== 'object' || value === null) return JSON.stringify(value);
  const inner = indent + unit;
  const items = Array.isArray(value)
    ? value.map((item) => pretty(item, unit, eol, inner))
    : Object.entries(value).map(([key, item]) => `${JSON.stringify(key)}: ${pretty(item, unit, eol, inner)}`);
  if (items.length === 0) return Array.isArray(value) ? '[]' : '{}';
  const [open, close] = Array.isArray(value) ? ['[', ']'] : ['{', '}'];
  return `${open}${eol}${items.map((item) => `${inner}${item}`).join(`,${eol}`)}${eol}${indent}${close}`;
}

const splice = (text: string, from: number, to: number, content: string): string => text.slice(0, from) + content + text.slice(to);

/**
 * JSON and JSONC settings files (comments, trailing commas) edited as text: an entry is inserted after
 * the last one with the file's own indentation, and removing it takes out exactly what was inserted,
 * so the user's bytes around it never change. (jsonc-parser's own formatter reflows the neighbouring
 * entry's line, which is why the insertion text is built here.)
 */
export function jsonFormat(key: string): ConfigFormat {
  const read = (text: string): ServerEntries => {
    if (blank(text)) return { entries: new Map(), hasContainer: false };
    const servers = container(parseRoot(text), key);
    const entries = new Map<string, unknown>();
    for (const child of servers?.children ?? []) {
      const [name, value] = child.children ?? [];
      if (typeof name?.value === 'string' && value) entries.set(name.value, getNodeValue(value));
    }
    return { entries, hasContainer: servers !== undefined };
  };

  const render = (text: string, value: unknown, indent: string): string => pretty(value, indentUnit(text), lineEnding(text), indent);

  const insert = (text: string, object: Node, name: string, value: unknown): string => {
    const eol = lineEnding(text);
    const objectIndent = lineIndent(text, object.offset);
    const children = object.children ?? [];
    const last = children.at(-1);
    if (last) {
      const propertyText = (indent: string) => `${JSON.stringify(name)}: ${render(text, value, indent)}`;
      if (!text.slice(object.offset, end(object)).includes('\n')) return splice(text, end(last), end(last), `, ${JSON.stringify(name)}: ${JSON.stringify(value)}`);
      const before = text.slice(text.lastIndexOf('\n', last.offset - 1) + 1, last.offset);
      const indent = blank(before) ? before : objectIndent + indentUnit(text);
      return splice(text, end(last), end(last), `,${eol}${indent}${propertyText(indent)}`);
    }
    const indent = objectIndent + indentUnit(text);
    const propertyText = `${JSON.stringify(name)}: ${render(text, value, indent)}`;
    const open = object.offset + 1;
    const close = end(object) - 1;
    const inner = text.slice(open, close);
    if (blank(inner)) return splice(text, open, close, `${eol}${indent}${propertyText}${eol}${objectIndent}`);
    // comments inside an empty object stay; the entry goes after them
    const at = open + inner.trimEnd().length;
    return splice(text, at, at, `${eol}${indent}${propertyText}`);
  };

  /** The inverse of `insert`: with the comma and line break that joined the entry to its neighbours. */
  const removeProperty = (text: string, object: Node, target: Node): string => {
    const children = object.children ?? [];
    const index = children.indexOf(target);
    const previous = children[index - 1];
    const next = children[index + 1];
    if (previous) return splice(text, end(previous), end(target), '');
    if (next) return splice(text, target.offset, next.offset, '');
    const open = object.offset + 1;
    const close = end(object) - 1;
    const after = text.slice(end(target), close);
    const trailingComma = /^\s*,/.exec(after)?.[0].length ?? 0;
    if (blank(text.slice(open, target.offset)) && blank(after.slice(trailingComma))) return splice(text, open, close, '');
    const from = text.slice(0, target.offset).trimEnd().length;
    return splice(text, from, end(target) + trailingComma, '');
  };

  const edits = {
    read,
    set: (text: string, name: string, entry: Entry, exists: boolean): string => {
      if (blank(text)) return `${pretty({ [key]: { [name]: entry } }, '  ', '\n', '')}\n`;
      const root = parseRoot(text);
      const servers = container(root, key);
      if (!servers) return insert(text, root, key, { [name]: entry });
      const current = exists ? property(servers, name) : undefined;
      const value = current?.children?.[1];
      if (!current || !value) return insert(text, servers, name, entry);
      return splice(text, value.offset, end(value), render(text, entry, lineIndent(text, current.offset)));
    },
    remove: (text: string, name: string): string => {
      const servers = container(parseRoot(text), key);
      const target = servers && property(servers, name);
      return servers && target ? removeProperty(text, servers, target) : text;
    },
    removeContainer: (text: string): string => {
      const root = parseRoot(text);
      const target = property(root, key);
      return target ? removeProperty(text, root, target) : text;
    },
  };
  return { read, apply: (text, changes) => applyOneByOne(text, changes, edits) };
}
