import { uniformInt } from 'pure-rand/distribution/uniformInt';
import { xoroshiro128plus } from 'pure-rand/generator/xoroshiro128plus';
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

interface Draft {
  method: string;
  version: string;
  /** The request target: path and query, already encoded. */
  target: string;
  headers: [string, string][];
  body?: Buffer;
}

type Random = <T>(items: readonly T[]) => T;

/** Values a path segment is given on purpose (already percent-encoded where that matters). */
const BAD_SEGMENTS: [string, string][] = [
  ['NUL', 'a%00b'],
  ['300-character name', 'a'.repeat(300)],
  ['2000-character name', 'b'.repeat(2000)],
  ['bad % escape', 'a%zzb'],
  ['lone %', 'a%'],
  ['invalid UTF-8 escape', '%ED%A0%80'],
  ['invalid UTF-8 byte', '%FF'],
  ['..', '..'],
  ['encoded ..', '%2e%2e'],
  ['traversal', '..%2F..%2Fetc%2Fpasswd'],
  ['encoded slash', 'a%2Fb'],
  ['emoji', '%F0%9F%98%80'],
  ['accented', 'caf%C3%A9'],
  ['right-to-left override', 'a%E2%80%AEb'],
  ['control character', 'a%01b'],
  ['space', 'a%20b'],
  ['dot', '.'],
  ['leading dash', '-rf'],
];

/** Values a query parameter is given on purpose (already percent-encoded). */
const BAD_QUERY_VALUES: [string, string][] = [
  ['1e309', '1e309'],
  ['Infinity', 'Infinity'],
  ['-Infinity', '-Infinity'],
  ['NaN', 'NaN'],
  ['hex', '0x10'],
  ['negative', '-1'],
  ['zero', '0'],
  ['huge', '99999999999999999999999'],
  ['fraction', '1.5'],
  ['1.0', '1.0'],
  ['leading space', '%205'],
  ['empty', ''],
  ['NUL', 'a%00'],
  ['long string', 'q'.repeat(5000)],
  ['unicode', '%F0%9F%98%80%E2%80%AE'],
  ['bad % escape', '%zz'],
  ['boolean', 'true'],
  ['brackets', '%5B%5D'],
];

/** Keys tried inside free-form objects (a server.json, env vars): the ones services read. */
const COMMON_KEYS = ['name', 'version', 'description', 'title', 'packages', 'remotes', 'repository', '$schema', '_meta', 'status', 'namespace'];

/** Values of every JSON type, to put where another type is expected. */
const TYPED_VALUES: [string, unknown][] = [
  ['number', 42],
  ['negative number', -1],
  ['huge number', 1e308],
  ['string', 'fuzz'],
  ['empty string', ''],
  ['boolean', true],
  ['null', null],
  ['array', ['fuzz']],
  ['empty array', []],
  ['object', { fuzz: 'fuzz' }],
];

/** Strings a field is given on purpose; a URL among them only ever points at this machine. */
const STRANGE_STRINGS = [
  'a\u0000b',
  '\u0000',
  'caf\u00e9\u202e\ud83d\ude00',
  '\ud800',
  '../../etc/passwd',
  '/etc/passwd',
  ' padded ',
  'line\nbreak',
  'n'.repeat(300),
  'not a url',
  'http://',
  'http://a%zz@127.0.0.1:9/mcp',
  'ftp://127.0.0.1:9/',
  '%zz',
  '-rf',
  '*',
  '',
];

const MALFORMED_JSON: [string, string][] = [
  ['truncated', '{"name": '],
  ['trailing comma', '{"name": "a",}'],
  ['single quotes', "{'name': 'a'}"],
  ['bare word', 'fuzz'],
  ['lone brace', '{'],
  ['unpaired surrogate escape', '{"name": "\\ud800"}'],
  ['bad escape', '{"name": "\\x41"}'],
  ['NUL escape in a key', '{"a\\u0000": 1}'],
  ['__proto__', '{"__proto__": {"polluted": true}}'],
  ['constructor.prototype', '{"constructor": {"prototype": {"polluted": true}}}'],
  ['duplicate keys', '{"name": "a", "name": 1}'],
  ['two documents', '{} {}'],
  ['BOM', '\uFEFF{}'],
];

const CONTENT_TYPES = [
  'text/plain',
  'application/xml',
  'multipart/form-data; boundary=fuzz',
  'application/x-www-form-urlencoded',
  'application/json; charset=latin1',
  'application/json, text/plain',
  ';;;',
  'application/octet-stream',
  'application/vnd.api+json',
  'json',
];

const ODD_METHODS = ['PATCH', 'OPTIONS', 'TRACE', 'PROPFIND', 'get', 'FUZZ', 'HEAD', 'M-SEARCH', 'PURGE', 'PUT', 'DELETE', 'POST', 'GET'];

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


  const mutators: ((operation: Operation, draft: Draft, segments: Record<string, string>, body: unknown) => string | undefined)[] = [
    // a bad path parameter
    (operation, draft, segments) => {
      const param = operation.pathParams.length > 0 ? pick(operation.pathParams) : undefined;
      if (!param) return undefined;
      const [label, value] = pick(BAD_SEGMENTS);
      draft.target = fillPath(operation.path, { ...segments, [param.name]: value });
      return `path ${param.name} = ${label}`;
    },
    // a bad query value, a repeated parameter or an unknown one
    (operation, draft) => {
      const names = [...operation.query.map((p) => p.name), 'fuzz'];
      const name = pick(names);
      if (chance(15)) {
        draft.target += `?${name}=1&${name}=2`;
        return `query ${name} given twice`;
      }
      const [label, value] = pick(BAD_QUERY_VALUES);
      draft.target += `?${name}=${value}`;
      return `query ${name} = ${label}`;
    },
    // a body: malformed, of the wrong type, with a wrong field, an unknown field, a huge or NUL string
    (operation, draft, _segments, body) => {
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
    },
    // a content type the route does not take
    (_operation, draft, _segments, body) => {
      const type = pick(CONTENT_TYPES);
      draft.headers = draft.headers.filter(([name]) => name !== 'content-type');
      if (draft.body === undefined) draft.body = Buffer.from(JSON.stringify(body ?? { fuzz: 1 }));
      if (chance(20)) return 'body without content-type';
      draft.headers.push(['content-type', type]);
      return `content-type ${type}`;
    },
    // an odd method
    (_operation, draft) => {
      draft.method = pick(ODD_METHODS);
      return `method ${draft.method}`;
    },
    // odd headers and framing
    (_operation, draft) => {
      const variant = pick(PROTOCOL_MUTATIONS);
      variant[1](draft);
      return variant[0];
    },
  ];

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
    // an operation with a body gets body mutations half of the time
    const weighted = operation.body ? [...mutators, ...Array.from({ length: mutators.length - 2 }, () => mutators[2])] : mutators;
    while (mutation === undefined) mutation = pick(weighted)?.(operation, draft, segments, body);
    if (draft.body !== undefined && !draft.headers.some(([name]) => name.toLowerCase() === 'content-length' || name.toLowerCase() === 'transfer-encoding')) {
      draft.headers.push(['content-length', String(draft.body.length)]);
    }
    return { operation: `${operation.method} ${operation.path}`, mutation, payload: render(draft), head: draft.method === 'HEAD' };
  };
}

function fillPath(template: string, values: Record<string, string>): string {
  return template.replace(/\{([^}]+)\}/g, (_match, name: string) => values[name] ?? 'fuzz');
}

const without = (draft: Draft, header: string) => (draft.headers = draft.headers.filter(([name]) => name !== header));

/** Replaces the body with `text` sent as application/json. */
function setBody(draft: Draft, text: string): void {
  without(draft, 'content-type');
  draft.headers.push(['content-type', 'application/json']);
  draft.body = Buffer.from(text);
}

/** Requests Node's parser, not a route, has to answer. */
const PROTOCOL_MUTATIONS: [string, (draft: Draft) => void][] = [
  ['Expect: fuzz', (d) => d.headers.push(['expect', 'fuzz'])],
  ['Expect: 100-continue', (d) => d.headers.push(['expect', '100-continue'])],
  ['HTTP/1.0 without Host', (d) => ((d.version = 'HTTP/1.0'), without(d, 'host'))],
  ['HTTP/1.1 without Host', (d) => without(d, 'host')],
  ['two Host headers', (d) => d.headers.push(['host', 'example.com'])],
  ['Host with a space', (d) => (without(d, 'host'), d.headers.push(['host', 'local host']))],
  ['CONNECT', (d) => ((d.method = 'CONNECT'), (d.target = 'localhost:443'))],
  ['20 KB URI', (d) => (d.target += `?q=${'u'.repeat(20_000)}`)],
  ['5 KB path segment', (d) => (d.target += `/${'s'.repeat(5_000)}`)],
  ['20 KB header', (d) => d.headers.push(['x-fuzz', 'h'.repeat(20_000)])],
  ['300 headers', (d) => d.headers.push(...Array.from({ length: 300 }, (_, i): [string, string] => [`x-fuzz-${String(i)}`, 'v']))],
  ['control byte in a header value', (d) => d.headers.push(['x-fuzz', 'a\u0001b'])],
  ['DEL byte in a header value', (d) => d.headers.push(['x-fuzz', 'a\u007fb'])],
  ['latin-1 byte in a header value', (d) => d.headers.push(['x-fuzz', 'caf\u00e9'])],
  ['header without a colon', (d) => d.headers.push(['x-fuzz no colon', ''])],
  ['space in a header name', (d) => d.headers.push(['x fuzz', 'v'])],
  ['Content-Length abc', (d) => d.headers.push(['content-length', 'abc'])],
  ['Content-Length -1', (d) => d.headers.push(['content-length', '-1'])],
  ['Content-Length twice', (d) => d.headers.push(['content-length', '0'], ['content-length', '1'])],
  ['Transfer-Encoding with Content-Length', (d) => d.headers.push(['transfer-encoding', 'chunked'], ['content-length', '3'])],
  ['bad chunk size', (d) => (d.headers.push(['transfer-encoding', 'chunked']), (d.body = Buffer.from('zz\r\nabc\r\n0\r\n\r\n')))],
  ['Transfer-Encoding gzip', (d) => d.headers.push(['transfer-encoding', 'gzip'])],
  ['Upgrade: websocket', (d) => d.headers.push(['upgrade', 'websocket'], ['connection', 'upgrade'])],
  ['Upgrade: h2c', (d) => d.headers.push(['upgrade', 'h2c'], ['http2-settings', 'AAMAAABkAARAAAAAAAIAAAAA'])],
  ['HTTP/2.0 request line', (d) => (d.version = 'HTTP/2.0')],
  ['HTTP/9.9 request line', (d) => (d.version = 'HTTP/9.9')],
  ['absolute URI', (d) => (d.target = `http://localhost${d.target}`)],
  ['asterisk target', (d) => ((d.method = 'OPTIONS'), (d.target = '*'))],
  ['space in the path', (d) => (d.target = d.target.replace('/', '/a b/'))],
  ['bare LF line ends', (d) => (d.version = 'HTTP/1.1\n')],
  ['Accept: application/xml', (d) => d.headers.push(['accept', 'application/xml'])],
  ['Authorization: Bearer garbage', (d) => d.headers.push(['authorization', 'Bearer not.a.token'])],
  ['Authorization without a scheme', (d) => d.headers.push(['authorization', 'x'.repeat(3000)])],
  ['odd x-request-id', (d) => (without(d, 'x-request-id'), d.headers.push(['x-request-id', '../\u00e9'.repeat(50)]))],
  ['If-Match garbage', (d) => d.headers.push(['if-match', '"unterminated'])],
  ['Range header', (d) => d.headers.push(['range', 'bytes=99999999-'])],
];
