import { connect, type AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HttpApp } from '../../src/core/http/app.js';
import { isErrorShape, sendRaw, type RawResponse } from '../../scripts/fuzz/raw-http.js';
import { createTestRegistry, type TestRegistry } from '../helpers/registry.js';
import { testRuntime, type TestRuntime } from '../runtime/fixtures.js';

/**
 * The HTTP edge both services share (src/core/http): every answer to a bad request, whoever gives it
 * (Node's parser, Fastify, find-my-way or a route), is a 4xx with an `{error}` body. Each case is sent
 * as raw bytes over a real socket to the real app of each service.
 */
interface Service {
  name: string;
  /** A POST route taking a JSON object body, and a body it accepts. */
  post: { path: string; body: Record<string, unknown> };
  /** A route with a path parameter, `%s` standing for it. */
  param: string;
  /** A list route and an integer query parameter of it. */
  list: { path: string; integer: string };
  /** A POST route, a body with a NUL deep inside, and the field the answer names. */
  nested: { path: string; body: Record<string, unknown>; field: string };
}

const SERVICES: Service[] = [
  {
    name: 'registry server',
    post: { path: '/v1/entries', body: { server: { name: 'com.example/edge', version: '1.0.0', description: 'x' } } },
    param: '/v1/sources/%s',
    list: { path: '/registry/default/v0.1/servers', integer: 'limit' },
    nested: { path: '/v1/entries', body: { server: { name: 'com.example/a\u0000b', version: '1.0.0', description: 'x' } }, field: 'body.server.name' },
  },
  {
    name: 'local runtime',
    post: { path: '/api/v1beta/groups', body: { name: 'edge' } },
    param: '/api/v1beta/workloads/%s',
    list: { path: '/registry/default/v0.1/servers', integer: 'page' },
    nested: { path: '/api/v1beta/workloads', body: { name: 'a', url: 'http://127.0.0.1:9/mcp', env_vars: { MODE: 'a\u0000b' } }, field: 'body.env_vars.MODE' },
  },
];

function request(method: string, path: string, headers: Record<string, string> = {}, body = ''): Buffer {
  const lines = Object.entries({ host: 'localhost', connection: 'close', ...(body !== '' && { 'content-length': String(Buffer.byteLength(body)) }), ...headers });
  return Buffer.from(`${method} ${path} HTTP/1.1\r\n${lines.map(([name, value]) => `${name}: ${value}\r\n`).join('')}\r\n${body}`, 'latin1');
}

const json = (body: unknown) => ({ headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

describe.each(SERVICES)('the HTTP edge of the $name', (service) => {
  let port: number;
  let close: () => Promise<void>;

  beforeAll(async () => {
    let http: HttpApp;
    if (service.name === 'registry server') {
      const registry: TestRegistry = await createTestRegistry({ config: { sources: [{ name: 'internal', managed: {} }], registries: [{ name: 'default', sources: ['internal'] }] } });
      http = registry.http;
      close = () => registry.dispose();
    } else {
      const runtime: TestRuntime = await testRuntime({ supervisor: 'fake' });
      http = runtime.app.http;
      close = () => runtime.close();
    }
    await http.listen({ host: '127.0.0.1', port: 0 });
    port = (http.server.address() as AddressInfo).port;
  });
  afterAll(() => close());

  async function answer(payload: Buffer): Promise<RawResponse> {
    const outcome = await sendRaw(port, payload);
    if (outcome.kind !== 'answer') throw new Error(`no answer: ${outcome.detail}`);
    return outcome.response;
  }

  async function expectError(payload: Buffer, status: number, message: RegExp): Promise<RawResponse> {
    const response = await answer(payload);
    expect({ status: response.status, body: response.body }).toMatchObject({ status, body: expect.stringMatching(message) as unknown });
    expect(isErrorShape(response), response.body).toBe(true);
    return response;
  }

  it('answers an accepted request as before', async () => {
    const { headers, body } = json(service.post.body);
    expect((await answer(request('POST', service.post.path, headers, body))).status).toBe(201);
  });

  describe('framework errors go through the one error handler', () => {
    it('a bad percent-escape in the path', async () => {
      await expectError(request('GET', service.param.replace('%s', 'a%zzb')), 400, /the path \\"[^\\]*a%zzb\\" is not valid: a % must start an escape/);
      await expectError(request('GET', service.param.replace('%s', '%ED%A0%80')), 400, /is not valid/);
    });

    it('a path segment over the length limit (414)', async () => {
      await expectError(request('GET', service.param.replace('%s', 'a'.repeat(1100))), 414, /path segment is longer than 1024 characters/);
    });

    it('a content type the route does not take (415)', async () => {
      await expectError(request('POST', service.post.path, { 'content-type': 'application/xml' }, '<a/>'), 415, /content-type \\"application\/xml\\" is not accepted: send the body as application\/json/);
    });

    it('a malformed JSON body, an empty one and prototype keys', async () => {
      await expectError(request('POST', service.post.path, { 'content-type': 'application/json' }, '{"name": '), 400, /body: is not valid JSON \(/);
      await expectError(request('POST', service.post.path, { 'content-type': 'application/json', 'content-length': '0' }), 400, /body: is empty/);
      await expectError(request('POST', service.post.path, { 'content-type': 'application/json' }, '{"__proto__": {"x": 1}}'), 400, /__proto__/);
    });

    it('a body over the limit (413)', async () => {
      const huge = JSON.stringify({ name: 'a'.repeat(10 * 1024 * 1024) });
      await expectError(request('POST', service.post.path, { 'content-type': 'application/json' }, huge), 413, /larger than the limit of 10485760 bytes/);
    });
  });

  it('reads a body nobody uses to its end before closing, so the answer is not lost to a reset', async () => {
    for (const [method, path, status] of [['GET', '/health', 200], ['POST', service.post.path, 413]] as const) {
      const size = 12 * 1024 * 1024;
      const socket = connect({ port, host: '127.0.0.1' });
      let received = '';
      socket.on('data', (chunk: Buffer) => (received += chunk.toString()));
      const ended = new Promise((resolve) => socket.once('end', resolve));
      await new Promise((resolve) => socket.once('connect', resolve));
      socket.write(`${method} ${path} HTTP/1.1\r\nhost: localhost\r\nconnection: close\r\ncontent-type: application/json\r\ncontent-length: ${String(size)}\r\n\r\n`);
      socket.write('x'.repeat(1024 * 1024));
      await sleep(300);
      // the server must still be reading: closing now would reset the connection under the client's writes
      expect({ method, received, ended: socket.readableEnded }).toEqual({ method, received: '', ended: false });
      socket.write('x'.repeat(size - 1024 * 1024));
      await ended;
      socket.destroy();
      expect(received).toMatch(new RegExp(`^HTTP/1.1 ${String(status)} `));
    }
  });

  describe("requests Node's HTTP parser answers itself", () => {
    it('an Expect other than 100-continue (417)', async () => {
      const response = await expectError(request('GET', '/health', { expect: 'fuzz' }), 417, /Expect: fuzz is not supported; only 100-continue is/);
      expect(response.headers.connection).toBe('close');
      expect((await answer(request('GET', '/health', { expect: '100-continue' }))).status).toBe(200);
    });

    it('an HTTP/1.1 request without Host (400)', async () => {
      const response = await expectError(Buffer.from('GET /health HTTP/1.1\r\nconnection: close\r\n\r\n'), 400, /the Host header is required/);
      expect(response.headers.connection).toBe('close');
    });

    it('CONNECT (405 with Allow, the connection closed)', async () => {
      const response = await expectError(request('CONNECT', 'example.com:443', { host: 'example.com:443' }), 405, /CONNECT is not supported: this server is not a proxy/);
      expect(response.headers.allow).toMatch(/GET/);
      expect(response.headers.connection).toBe('close');
    });

    it('malformed request lines, bad header bytes and bad lengths (400)', async () => {
      await expectError(Buffer.from('GET /he alth HTTP/1.1\r\nhost: localhost\r\n\r\n'), 400, /the request line must read METHOD \/path HTTP\/1.1/);
      await expectError(Buffer.from('FUZZ /health HTTP/1.1\r\nhost: localhost\r\n\r\n'), 400, /not a valid HTTP method/);
      await expectError(Buffer.from('GET /health HTTP/1.1\r\nhost: localhost\r\nx-a: b\u0001c\r\n\r\n', 'latin1'), 400, /invalid name or a control character/);
      await expectError(Buffer.from('GET /health HTTP/1.1\r\nhost: localhost\r\nbad header\r\n\r\n'), 400, /invalid name/);
      await expectError(request('POST', service.post.path, { 'content-length': 'abc' }), 400, /Content-Length header is not a single decimal number/);
      await expectError(request('POST', service.post.path, { 'content-length': '2', 'transfer-encoding': 'chunked' }), 400, /Transfer-Encoding header is not valid: send chunked alone, without Content-Length/);
      await expectError(request('POST', service.post.path, { 'content-length': '2', 'Content-Length': '3' }), 400, /Content-Length header is sent twice/);
    });

    it('headers over 16 KiB (431)', async () => {
      await expectError(request('GET', '/health', { 'x-big': 'a'.repeat(20_000) }), 431, /larger than 16 KiB/);
      await expectError(request('GET', `/health?${'a'.repeat(20_000)}`), 431, /larger than 16 KiB/);
    });
  });

  describe('a NUL character is refused at validation, naming the field', () => {
    it('in a path segment', async () => {
      await expectError(request('GET', service.param.replace('%s', 'a%00b')), 400, /^\{"error":"name: must not contain a NUL character"\}$/);
    });

    it('in a query value', async () => {
      await expectError(request('GET', `${service.list.path}?${service.list.integer}=1&x=a%00`), 400, /x: must not contain a NUL character/);
    });

    it('in a string anywhere in a JSON body, and in a key', async () => {
      const { headers, body } = json(service.nested.body);
      await expectError(request('POST', service.nested.path, headers, body), 400, new RegExp(`"${service.nested.field.replace(/\./g, '\\.')}: must not contain a NUL character"`));
      const key = json({ ...service.post.body, ['a\u0000']: 1 });
      await expectError(request('POST', service.post.path, key.headers, key.body), 400, /"body: must not contain a NUL character"/);
    });
  });

  it('refuses half of a surrogate pair in a JSON string (PostgreSQL cannot store it), naming the field', async () => {
    const body = JSON.stringify({ name: 'a', labels: { team: 'a\udc00' } });
    await expectError(request('POST', service.nested.path, { 'content-type': 'application/json' }, body), 400, /"body\.labels\.team: must be well-formed Unicode/);
    if (service.name === 'registry server') {
      // where it answered 500: PostgreSQL refused the claims as JSON
      const claims = JSON.stringify({ claims: { team: 'a\ud800' } });
      await expectError(request('PUT', '/v1/registries/edge', { 'content-type': 'application/json' }, claims), 400, /"body\.claims\.team: must be well-formed Unicode/);
    }
  });

  describe('integers in the query are decimal digits, within range', () => {
    it.each(['1e309', 'Infinity', '0x10', '1.0', '%205', '', '-0x1', '99999999999999999999'])('%j is refused with 400 naming the parameter', async (value) => {
      await expectError(request('GET', `${service.list.path}?${service.list.integer}=${value}`), 400, new RegExp(`^\\{"error":"${service.list.integer}: must be`));
    });

    it('a plain number still works', async () => {
      expect((await answer(request('GET', `${service.list.path}?${service.list.integer}=2`))).status).toBe(200);
    });
  });
});
