import { Document, isMap, isPair, isScalar, isSeq, parseDocument, stringify, type Node, type Pair, type YAMLMap, type YAMLSeq } from 'yaml';
import { InvalidInputError } from '../../../core/errors.js';
import { applyOneByOne, endOfLine, lineEnding, sameValue, startOfLine, type ConfigFormat, type Entry, type ServerEntries } from './format.js';

export interface YamlFormatOptions {
  /** The top-level key holding the servers. */
  key: string;
  /** `map`: servers keyed by name (Goose `extensions`); `list`: a sequence of entries with a `name` (Continue). */
  shape: 'map' | 'list';
}

function parse(text: string): Document.Parsed {
  const document = parseDocument(text);
  const first = document.errors[0];
  if (first) throw new InvalidInputError(`not valid YAML: ${first.message}`);
  if (document.contents !== null && !isMap(document.contents)) throw new InvalidInputError('not a YAML mapping at the top level');
  return document;
}

const rootPair = (document: Document.Parsed, key: string): Pair | undefined =>
  isMap(document.contents) ? document.contents.items.find((pair) => isScalar(pair.key) && pair.key.value === key) : undefined;

const range = (node: unknown): [number, number, number] | undefined => (node as Node | null | undefined)?.range ?? undefined;

const nameOf = (item: unknown): unknown => (isMap(item) ? item.get('name') : undefined);

const lines = (entry: unknown): string[] => stringify(entry, { lineWidth: 0 }).replace(/\n$/, '').split('\n');

/**
 * YAML configuration edited as text where the layout is the usual block style, so comments, quoting
 * and spacing elsewhere in the file stay byte for byte; anything else (flow collections, an empty
 * key) goes through the yaml Document model, which keeps comments but may respace the file.
 */
export function yamlFormat({ key, shape }: YamlFormatOptions): ConfigFormat {
  const collection = (document: Document.Parsed): YAMLMap | YAMLSeq | undefined => {
    const value: unknown = rootPair(document, key)?.value;
    if (value === undefined || value === null || (isScalar(value) && value.value === null)) return undefined;
    if (shape === 'map' ? !isMap(value) : !isSeq(value)) throw new InvalidInputError(`"${key}" is not a ${shape === 'map' ? 'mapping' : 'list'}`);
    return value as YAMLMap | YAMLSeq;
  };

  /** Each server with the node that holds it: a pair (map shape) or a list item (list shape). */
  const servers = (document: Document.Parsed): { name: string; node: unknown; start: number; end: number }[] => {
    const found = collection(document);
    if (!found) return [];
    if (isMap(found)) {
      return found.items.flatMap((pair) => {
        const keyRange = range(pair.key);
        const valueRange = range(pair.value) ?? keyRange;
        return isScalar(pair.key) && typeof pair.key.value === 'string' && keyRange && valueRange
          ? [{ name: pair.key.value, node: pair.value, start: keyRange[0], end: valueRange[1] }]
          : [];
      });
    }
    return found.items.flatMap((item) => {
      const name = nameOf(item);
      const itemRange = range(item);
      return typeof name === 'string' && itemRange ? [{ name, node: item, start: itemRange[0], end: itemRange[1] }] : [];
    });
  };

  const read = (text: string): ServerEntries => {
    const document = parse(text);
    const entries = new Map<string, unknown>();
    for (const server of servers(document)) entries.set(server.name, (server.node as Node | null)?.toJSON() ?? null);
    return { entries, hasContainer: rootPair(document, key) !== undefined };
  };

  /** The entry's lines, prefixed to sit at the given position: `indent` for a map key, `- ` for an item. */
  const block = (text: string, name: string, entry: Entry, first: string, rest: string): string => {
    const body = shape === 'map' ? lines({ [name]: entry }) : lines(entry);
    const eol = lineEnding(text);
    return body.map((line, index) => `${index === 0 ? first : rest}${line}${eol}`).join('');
  };

  /** The prefixes of the collection's first item, when it is in block style with plain indentation. */
  const prefixes = (text: string, document: Document.Parsed): { first: string; rest: string } | undefined => {
    const found = collection(document);
    const firstItem: unknown = found?.items[0];
    const start = range(isPair(firstItem) ? firstItem.key : firstItem)?.[0];
    if (!found || found.flow === true || start === undefined) return undefined;
    const lead = text.slice(startOfLine(text, start), start);
    if (shape === 'map') return /^ *$/.test(lead) ? { first: lead, rest: lead } : undefined;
    return /^ *- +$/.test(lead) ? { first: lead, rest: ' '.repeat(lead.length) } : undefined;
  };

  const splice = (text: string, from: number, to: number, content: string): string => {
    const joined = to === text.length && from === to && text !== '' && !text.endsWith('\n') ? `${lineEnding(text)}${content}` : content;
    return text.slice(0, from) + joined + text.slice(to);
  };

  const textSet = (text: string, name: string, entry: Entry): string | undefined => {
    const document = parse(text);
    const pair = rootPair(document, key);
    if (!pair) {
      if (isMap(document.contents) && document.contents.flow === true) return undefined;
      const item = shape === 'map' ? { first: '  ', rest: '  ' } : { first: '  - ', rest: '    ' };
      return splice(text, text.length, text.length, `${key}:${lineEnding(text)}${block(text, name, entry, item.first, item.rest)}`);
    }
    const at = prefixes(text, document);
    if (!at) return undefined;
    const all = servers(document);
    const current = all.find((server) => server.name === name);
    if (current) return splice(text, startOfLine(text, current.start), endOfLine(text, current.end), block(text, name, entry, at.first, at.rest));
    const collectionEnd = range(collection(document))?.[1];
    if (collectionEnd === undefined) return undefined;
    const after = endOfLine(text, collectionEnd);
    return splice(text, after, after, block(text, name, entry, at.first, at.rest));
  };

  const textRemove = (text: string, name: string): string | undefined => {
    const current = servers(parse(text)).find((server) => server.name === name);
    return current && text.slice(0, startOfLine(text, current.start)) + text.slice(endOfLine(text, current.end));
  };

  const textRemoveContainer = (text: string): string | undefined => {
    const pair = rootPair(parse(text), key);
    const keyRange = range(pair?.key);
    const valueRange = range(pair?.value) ?? keyRange;
    return keyRange && valueRange && text.slice(0, startOfLine(text, keyRange[0])) + text.slice(endOfLine(text, valueRange[1]));
  };

  /** The Document-model edit, for layouts the text edits do not handle. */
  const documentEdit = (text: string, edit: (document: Document.Parsed) => void): string => {
    const document = parse(text);
    edit(document);
    return document.toString({ lineWidth: 0 });
  };

  const checked = (candidate: string | undefined, expect: (entries: Map<string, unknown>) => boolean): candidate is string => {
    if (candidate === undefined) return false;
    try {
      return expect(read(candidate).entries);
    } catch {
      return false;
    }
  };

  const edits = {
    read,
    set: (text: string, name: string, entry: Entry): string => {
      const candidate = textSet(text, name, entry);
      if (checked(candidate, (entries) => sameValue(entries.get(name), entry))) return candidate;
      return documentEdit(text, (document) => {
        const found = collection(document);
        if (!found) return document.set(key, document.createNode(shape === 'map' ? { [name]: entry } : [entry]));
        if (isMap(found)) return found.set(name, document.createNode(entry));
        const index = found.items.findIndex((item) => nameOf(item) === name);
        if (index === -1) found.add(document.createNode(entry));
        else found.set(index, document.createNode(entry));
      });
    },
    remove: (text: string, name: string): string => {
      const candidate = textRemove(text, name);
      if (checked(candidate, (entries) => !entries.has(name))) return candidate;
      return documentEdit(text, (document) => {
        const found = collection(document);
        if (isMap(found)) found.delete(name);
        else if (found) found.items = found.items.filter((item) => nameOf(item) !== name);
      });
    },
    removeContainer: (text: string): string => {
      const candidate = textRemoveContainer(text);
      const before = read(text).entries;
      if (checked(candidate, (entries) => entries.size === 0 && before.size === 0)) return candidate;
      return documentEdit(text, (document) => document.delete(key));
    },
  };
  return { read, apply: (text, changes) => applyOneByOne(text, changes, edits) };
}
