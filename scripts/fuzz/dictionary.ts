/** The bad values and odd requests the fuzzer draws from. */

/** The request being built: every part of it is open to a mutation. */
export interface Draft {
  method: string;
  version: string;
  /** The request target: path and query, already encoded. */
  target: string;
  headers: [string, string][];
  body?: Buffer;
}

/** Values a path segment is given on purpose (already percent-encoded where that matters). */
export const BAD_SEGMENTS: [string, string][] = [
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
export const BAD_QUERY_VALUES: [string, string][] = [
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
export const COMMON_KEYS = ['name', 'version', 'description', 'title', 'packages', 'remotes', 'repository', '$schema', '_meta', 'status', 'namespace'];

/** Values of every JSON type, to put where another type is expected. */
export const TYPED_VALUES: [string, unknown][] = [
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
export const STRANGE_STRINGS = [
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

export const MALFORMED_JSON: [string, string][] = [
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

export const CONTENT_TYPES = [
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

export const ODD_METHODS = ['PATCH', 'OPTIONS', 'TRACE', 'PROPFIND', 'get', 'FUZZ', 'HEAD', 'M-SEARCH', 'PURGE', 'PUT', 'DELETE', 'POST', 'GET'];

export const without = (draft: Draft, header: string) => (draft.headers = draft.headers.filter(([name]) => name !== header));

/** Requests Node's parser, not a route, has to answer. */
export const PROTOCOL_MUTATIONS: [string, (draft: Draft) => void][] = [
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
