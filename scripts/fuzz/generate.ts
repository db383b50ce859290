import { uniformInt } from 'pure-rand/distribution/uniformInt';
import { xoroshiro128plus } from 'pure-rand/generator/xoroshiro128plus';
import {
  BAD_QUERY_VALUES,
  BAD_SEGMENTS,
  COMMON_KEYS,
  CONTENT_TYPES,
  MALFORMED_JSON,
  ODD_METHODS,
  PROTOCOL_MUTATIONS,
  STRANGE_STRINGS,
  TYPED_VALUES,
  without,
  type Draft,
} from './dictionary.js';
import { resolver, type Operation, type Schema } from './operations.js';

/** One generated request: the bytes to send and what was done to them. */
export interface FuzzCase {
  /** `METHOD /path/template` of the operation it started from. */
  operation: string;
  /** The one change made to a plausible request, e.g. `query limit = "1e309"`. */
  mutation: string;
  payload: Buffer;
  /** Sent as HEAD: the answer has no body to check. */
  head: boolean;
}

type Random = <T>(items: readonly T[]) => T;

/** A well-formed value for a schema, so that one mutation at a time is what a request gets wrong. */
function sample(schema: Schema, resolve: (schema: Schema) => Schema, depth = 0): unknown {
  const s = resolve(schema);
  if (s.const !== undefined) return s.const;
  if (s.enum?.[0] !== undefined) return s.enum[0];
  if (s.default !== undefined) return s.default;
  const branch = s.anyOf?.[0] ?? s.oneOf?.[0] ?? s.allOf?.[0];
  if (branch) return sample(branch, resolve, depth);
  const type = Array.isArray(s.type) ? s.type[0] : s.type;
  switch (type) {
    case 'integer':
    case 'number':
      return s.minimum ?? 1;
    case 'boolean':
      return false;
    case 'array':
      return (s.minItems ?? 0) > 0 && s.items ? [sample(s.items, resolve, depth + 1)] : [];
    case 'object': {
      if (depth > 4) return {};
      const entries = (s.required ?? []).map((key) => [key, sample(s.properties?.[key] ?? {}, resolve, depth + 1)]);
      return Object.fromEntries(entries);
    }
    default:
      // any URL a request carries points at a closed port on this machine, never outside it
      return s.format === 'uri' ? 'http://127.0.0.1:9/' : 'fuzz';
  }
}

/** The key paths of a body schema (array items as `0`), to pick where a mutation lands. */
function keyPaths(schema: Schema, resolve: (schema: Schema) => Schema, prefix: string[] = [], depth = 0): string[][] {
  const s = resolve(schema);
  if (depth > 3) return [];
  if (s.items) {
    const item = [...prefix, '0'];
    return [item, ...keyPaths(s.items, resolve, item, depth + 1)];
  }
  const paths: string[][] = [];
  const keys = Object.keys(s.properties ?? {});
  const free = s.additionalProperties !== false && (s.type === 'object' || s.properties !== undefined);
  for (const key of free ? [...keys, ...COMMON_KEYS.filter((k) => !keys.includes(k))] : keys) {
    const path = [...prefix, key];
    paths.push(path, ...keyPaths(s.properties?.[key] ?? {}, resolve, path, depth + 1));
  }
  return paths;
}

/** A copy of `target` with `value` at `path`, creating objects (arrays for `0`) on the way. */
function setPath(target: unknown, path: string[], value: unknown): unknown {
  const [key, ...rest] = path;
  if (key === undefined) return value;
  if (/^\d+$/.test(key)) {
    const array = Array.isArray(target) ? [...(target as unknown[])] : [];
    array[Number(key)] = setPath(array[Number(key)], rest, value);
    return array;
  }
  const object = typeof target === 'object' && target !== null && !Array.isArray(target) ? { ...(target as Record<string, unknown>) } : {};
  object[key] = setPath(object[key], rest, value);
  return object;
}

/** A value that names something that exists, so that requests get past the lookup to what they carry. */
function knownValue(template: string, name: string): string {
  if (/registry/i.test(name) || new RegExp(`/registry/\\{${name}\\}`).test(template)) return 'default';
  if (name === 'type') return 'server';
  if (name === 'version') return 'latest';
  return 'fuzz';
}

function render(draft: Draft): Buffer {
  const head = `${draft.method} ${draft.target} ${draft.version}\r\n${draft.headers.map(([name, value]) => `${name}: ${value}\r\n`).join('')}\r\n`;
  return Buffer.concat([Buffer.from(head, 'latin1'), draft.body ?? Buffer.alloc(0)]);
}

/**
 * A deterministic generator of bad requests for the operations of one service: each case is a
 * plausible request for one operation (they take turns) with exactly one thing wrong with it, so the
 * case is its own minimal reproduction.
 */
export function createCaseGenerator(options: { operations: Operation[]; document: unknown; seed: number }): () => FuzzCase {
  const rng = xoroshiro128plus(options.seed);
  const pick: Random = (items) => items[uniformInt(rng, 0, items.length - 1)] as (typeof items)[number];
  const chance = (percent: number) => uniformInt(rng, 1, 100) <= percent;
  const resolve = resolver(options.document);
  let turn = 0;

  type Mutator = (operation: Operation, draft: Draft, segments: Record<string, string>, body: unknown) => string | undefined;
  // a bad path parameter
  const badPath: Mutator = (operation, draft, segments) => {
    const param = operation.pathParams.length > 0 ? pick(operation.pathParams) : undefined;
    if (!param) return undefined;
    const [label, value] = pick(BAD_SEGMENTS);
    draft.target = fillPath(operation.path, { ...segments, [param.name]: value });
    return `path ${param.name} = ${label}`;
  };
  // a bad query value, a repeated parameter or an unknown one
  const badQuery: Mutator = (operation, draft) => {
    const names = [...operation.query.map((p) => p.name), 'fuzz'];
    const name = pick(names);
    if (chance(15)) {
      draft.target += `?${name}=1&${name}=2`;
      return `query ${name} given twice`;
    }
    const [label, value] = pick(BAD_QUERY_VALUES);
    draft.target += `?${name}=${value}`;
    return `query ${name} = ${label}`;
  };
  // a body: malformed, of the wrong type, with a wrong field, an unknown field, a huge or strange string
  const badBody: Mutator = (operation, draft, _segments, body) => {
    const shape = body ?? {};
    const paths = operation.body ? keyPaths(operation.body, resolve) : [];
    // wrong values in fields reach furthest into a service: they come most often
    const variant = pick([0, 1, 2, 2, 3, 4, 5, 5, 5, 5, 6]);
    const path = paths.length > 0 ? pick(paths) : ['fuzz'];
    const where = `body.${path.join('.')}`;
    if (variant === 0) {
      const [label, text] = pick(MALFORMED_JSON);
      setBody(draft, text);
      return `malformed JSON body (${label})`;
    }
    if (variant === 1) {
      const [label, value] = pick(TYPED_VALUES);
      setBody(draft, JSON.stringify(value));
      return `body is a ${label}`;
    }
    if (variant === 2) {
      const [label, value] = pick(TYPED_VALUES);
      setBody(draft, JSON.stringify(setPath(shape, path, value)));
      return `${where} = ${label}`;
    }
    if (variant === 3) {
      setBody(draft, JSON.stringify(setPath(shape, [...path.slice(0, -1), 'fuzzUnknownField'], 'x')));
      return `unknown field beside ${where}`;
    }
    if (variant === 4) {
      const size = chance(10) ? 11 * 1024 * 1024 : pick([300, 5_000, 100_000]);
      setBody(draft, JSON.stringify(setPath(shape, path, 'x'.repeat(size))));
      return `${where} = ${String(size)}-character string`;
    }
    if (variant === 5) {
      const value = pick(STRANGE_STRINGS);
      setBody(draft, JSON.stringify(setPath(shape, path, value)));
      return `${where} = ${JSON.stringify(value)}`;
    }
    const depth = pick([100, 10_000]);
    setBody(draft, `${'['.repeat(depth)}${']'.repeat(depth)}`);
    return `body nested ${String(depth)} arrays deep`;
  };
  // a content type the route does not take
  const badContentType: Mutator = (_operation, draft, _segments, body) => {
    const type = pick(CONTENT_TYPES);
    draft.headers = draft.headers.filter(([name]) => name !== 'content-type');
    if (draft.body === undefined) draft.body = Buffer.from(JSON.stringify(body ?? { fuzz: 1 }));
    if (chance(20)) return 'body without content-type';
    draft.headers.push(['content-type', type]);
    return `content-type ${type}`;
  };
  const oddMethod: Mutator = (_operation, draft) => {
    draft.method = pick(ODD_METHODS);
    return `method ${draft.method}`;
  };
  const oddProtocol: Mutator = (_operation, draft) => {
    const [label, mutate] = pick(PROTOCOL_MUTATIONS);
    mutate(draft);
    return label;
  };
  const mutators = [badPath, badQuery, badBody, badContentType, oddMethod, oddProtocol];
  // an operation with a body gets body mutations half of the time
  const bodyFirst = [...mutators, badBody, badBody, badBody, badBody];

  return () => {
    const operation = options.operations[turn % options.operations.length];
    turn += 1;
    if (!operation) throw new Error('the document has no operations');
    const segments = Object.fromEntries(operation.pathParams.map((p) => [p.name, knownValue(operation.path, p.name)]));
    const body = operation.body ? sample(operation.body, resolve) : undefined;
    const draft: Draft = {
      method: operation.method,
      version: 'HTTP/1.1',
      target: fillPath(operation.path, segments),
      headers: [
        ['host', 'localhost'],
        ['connection', 'close'],
        ['x-request-id', `fuzz-${String(turn)}`],
      ],
    };
    if (body !== undefined) setBody(draft, JSON.stringify(body));
    let mutation: string | undefined;
    while (mutation === undefined) mutation = pick(operation.body ? bodyFirst : mutators)(operation, draft, segments, body);
    if (draft.body !== undefined && !draft.headers.some(([name]) => name.toLowerCase() === 'content-length' || name.toLowerCase() === 'transfer-encoding')) {
      draft.headers.push(['content-length', String(draft.body.length)]);
    }
    return { operation: `${operation.method} ${operation.path}`, mutation, payload: render(draft), head: draft.method === 'HEAD' };
  };
}

function fillPath(template: string, values: Record<string, string>): string {
  return template.replace(/\{([^}]+)\}/g, (_match, name: string) => values[name] ?? 'fuzz');
}

/** Replaces the body with `text` sent as application/json. */
function setBody(draft: Draft, text: string): void {
  without(draft, 'content-type');
  draft.headers.push(['content-type', 'application/json']);
  draft.body = Buffer.from(text);
}

