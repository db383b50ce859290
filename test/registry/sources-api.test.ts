import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/core/telemetry/logger.js';
import { createApiSource, type ApiSourceOptions } from '../../src/registry/sources/providers/api.js';
import { CatalogFormatError } from '../../src/registry/sources/providers/catalog-document.js';
import { OFFICIAL_META } from '../../src/registry/sources/providers/records.js';
import { SourceFetchError } from '../../src/registry/sources/providers/provider.js';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.js';

const record = (index: number, version = '1.0.0') => ({
  server: { name: `io.example/server-${String(index).padStart(3, '0')}`, version, description: `server ${index}` },
  _meta: { [OFFICIAL_META]: { status: 'active', publishedAt: '2025-10-01T00:00:00Z', isLatest: true } },
});
const records = (count: number) => Array.from({ length: count }, (_, index) => record(index));

const context = (signal = new AbortController().signal) => ({ signal, logger: silentLogger });

describe('api source against a fake upstream registry', () => {
  let upstream: FakeUpstream;
  const source = (options: Partial<ApiSourceOptions> = {}) => createApiSource({ endpoint: upstream.url, timeoutMs: 1_000, backoffMs: 5, ...options });

  async function failure(options: Partial<ApiSourceOptions> = {}): Promise<Error> {
    const error: unknown = await source(options)
      .fetch(context())
      .then(
        () => new Error('expected the fetch to fail'),
        (caught: unknown) => caught,
      );
    expect(error).toBeInstanceOf(Error);
    return error as Error;
  }

  beforeAll(async () => {
    upstream = await startFakeUpstream();
  });
  afterEach(() => {
    upstream.setRecords([]);
    upstream.reset();
  });
  afterAll(() => upstream.close());

  it('follows nextCursor across pages and gathers every record once', async () => {
    upstream.setRecords(records(250));
    const parsed = (await source().fetch(context())).parse();
    expect(parsed.skipped).toEqual([]);
    expect(parsed.records).toHaveLength(250);
    expect(new Set(parsed.records.map((r) => r.name)).size).toBe(250);
    expect(parsed.records[249]?.name).toBe('io.example/server-249');
    expect(upstream.requests.map((request) => request.path)).toEqual(['/v0.1/servers', '/v0.1/servers', '/v0.1/servers']);
    expect(upstream.requests.map((request) => request.query.limit)).toEqual(['100', '100', '100']);
    expect(upstream.requests[0]?.query.cursor).toBeUndefined();
    expect(upstream.requests[1]?.query.cursor).toBeDefined();
  });

  it('asks for the page size it is given and stops on the page without a cursor', async () => {
    upstream.setRecords(records(20));
    const parsed = (await source({ pageSize: 7 }).fetch(context())).parse();
    expect(parsed.records.map((r) => r.name)).toEqual(records(20).map((r) => r.server.name));
    expect(upstream.requests).toHaveLength(3);
    expect(upstream.requests.every((request) => request.query.limit === '7')).toBe(true);
  });

  it('reads an empty upstream as an empty catalog', async () => {
    const parsed = (await source().fetch(context())).parse();
    expect(parsed).toEqual({ records: [], skipped: [] });
    expect(upstream.requests).toHaveLength(1);
  });

  it('crawls an endpoint given with its API version', async () => {
    upstream.setRecords(records(3));
    expect((await source({ endpoint: `${upstream.url}/v0.1/` }).fetch(context())).parse().records).toHaveLength(3);
    expect(upstream.requests.map((request) => request.path)).toEqual(['/v0.1/servers']);
  });

  it('skips invalid records and says on which page and at which index they were', async () => {
    upstream.setRecords([...records(3), { server: { name: 'bad name', version: '1' } }, record(4)]);
    const parsed = (await source({ pageSize: 2 }).fetch(context())).parse();
    expect(parsed.records).toHaveLength(4);
    expect(parsed.skipped).toEqual([expect.stringMatching(/^page 2 servers\[1\]\.name: "bad name" must be/)]);
  });

  it('retries 5xx answers with backoff and succeeds when the upstream recovers', async () => {
    upstream.setRecords(records(5));
    upstream.failNext(2, 503);
    const parsed = (await source().fetch(context())).parse();
    expect(parsed.records).toHaveLength(5);
    expect(upstream.requests).toHaveLength(3);
  });

  it('retries a 429 answer', async () => {
    upstream.setRecords(records(1));
    upstream.failNext(1, 429);
    expect((await source().fetch(context())).parse().records).toHaveLength(1);
    expect(upstream.requests).toHaveLength(2);
  });

  it('fails after its attempts when the upstream keeps answering 5xx, naming the status', async () => {
    upstream.failAlways(502);
    const error = await failure();
    expect(error).toBeInstanceOf(SourceFetchError);
    expect(error.message).toBe(`${upstream.url}/v0.1/servers?limit=100 answered HTTP 502 after 4 attempts`);
    expect(upstream.requests).toHaveLength(4);
  });

  it('fails at once on a 404, without retrying', async () => {
    upstream.failAlways(404);
    const error = await failure();
    expect(error).toBeInstanceOf(SourceFetchError);
    expect(error.message).toBe(`${upstream.url}/v0.1/servers?limit=100 answered HTTP 404`);
    expect(upstream.requests).toHaveLength(1);
  });

  it('fails with a time-out message when the upstream answers too slowly', async () => {
    upstream.setRecords(records(1));
    upstream.setDelay(2_000);
    const error = await failure({ timeoutMs: 100 });
    expect(error).toBeInstanceOf(SourceFetchError);
    expect(error.message).toBe(`${upstream.url}/v0.1/servers?limit=100 did not answer within 0.1s after 4 attempts`);
  });

  it('stops at once when its sync is aborted', async () => {
    upstream.setRecords(records(1));
    upstream.setDelay(2_000);
    const controller = new AbortController();
    const fetching = source({ timeoutMs: 5_000 }).fetch(context(controller.signal));
    setTimeout(() => controller.abort(new Error('the sync lease was lost')), 50);
    await expect(fetching).rejects.toThrow('the sync lease was lost');
    expect(upstream.requests).toHaveLength(1);
  });

  it('fails when the upstream cannot be reached, naming the cause', async () => {
    const closed = await startFakeUpstream();
    await closed.close();
    const error = await failure({ endpoint: closed.url });
    expect(error).toBeInstanceOf(SourceFetchError);
    expect(error.message).toBe(`${closed.url}/v0.1/servers?limit=100 could not be reached (ECONNREFUSED) after 4 attempts`);
  });

  it('keeps credentials of the endpoint URL out of its messages', async () => {
    const endpoint = upstream.url.replace('http://', 'http://reader:tok-en-123@');
    const error = await failure({ endpoint });
    expect(error).toBeInstanceOf(SourceFetchError);
    expect(error.message).toContain('http://***@127.0.0.1');
    expect(error.message).not.toContain('tok-en-123');
  });

  it('fails with a format error when the upstream does not answer JSON', async () => {
    upstream.setInvalidJson(true);
    const error = await failure();
    expect(error).toBeInstanceOf(CatalogFormatError);
    expect(error.message).toBe(`${upstream.url}/v0.1/servers did not answer with JSON`);
  });

  it.each([
    ['null', 'null'],
    ['a list', '[]'],
    ['an object without servers', '{"items": []}'],
    ['servers that is not a list', '{"servers": {}}'],
  ])('fails with a format error when the upstream answers %s', async (_case, body) => {
    upstream.setFile('/v0.1/servers', body);
    const error = await failure();
    expect(error).toBeInstanceOf(CatalogFormatError);
    expect(error.message).toBe(`${upstream.url}/v0.1/servers did not answer with {servers: [...]}`);
  });

  it('detects a cursor that comes back and stops instead of crawling forever', async () => {
    upstream.setRecords(records(500));
    upstream.setRepeatingCursor(true);
    const error = await failure();
    expect(error).toBeInstanceOf(CatalogFormatError);
    expect(error.message).toMatch(/^the upstream returned the cursor ".+" twice$/);
    expect(upstream.requests).toHaveLength(2);
  });

  it('stops after maxPages pages', async () => {
    upstream.setRecords(records(50));
    const error = await failure({ pageSize: 10, maxPages: 3 });
    expect(error).toBeInstanceOf(CatalogFormatError);
    expect(error.message).toBe('stopped after 3 pages: the upstream keeps returning a next cursor');
  });

  it('gives equal fingerprints for equal content and a different one after a change', async () => {
    upstream.setRecords(records(150));
    const first = await source().fetch(context());
    const second = await source().fetch(context());
    expect(second.fingerprint).toBe(first.fingerprint);
    upstream.setRecords([...records(149), record(149, '1.0.1')]);
    const changed = await source().fetch(context());
    expect(changed.fingerprint).not.toBe(first.fingerprint);
    upstream.setRecords(records(149));
    expect((await source().fetch(context())).fingerprint).not.toBe(first.fingerprint);
  });
});
