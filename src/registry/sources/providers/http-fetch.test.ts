import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetchText } from './http-fetch.js';
import { SourceFetchError } from './provider.js';

describe('fetchText body limit', () => {
  let server: Server;
  let base: string;

  beforeAll(async () => {
    server = createServer((request, response) => {
      const body = 'x'.repeat(5_000);
      if (request.url === '/sized') response.setHeader('content-length', body.length);
      response.end(body);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  const options = (maxBytes: number) => ({ timeoutMs: 2_000, signal: new AbortController().signal, maxBytes, attempts: 1 });

  it('returns a body within the limit', async () => {
    expect(await fetchText(`${base}/streamed`, options(10_000))).toHaveLength(5_000);
  });

  it('refuses a body over the limit, announced or streamed, without retrying', async () => {
    for (const path of ['/sized', '/streamed']) {
      const failure = fetchText(`${base}${path}`, options(1_000));
      await expect(failure).rejects.toBeInstanceOf(SourceFetchError);
      await expect(failure).rejects.toThrow(/more than/);
    }
  });
});
