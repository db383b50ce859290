import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/core/telemetry/logger.js';
import { CatalogFormatError } from '../../src/registry/sources/providers/catalog-document.js';
import { createFileSource, type FileSourceOptions } from '../../src/registry/sources/providers/file.js';
import { sha256, SourceFetchError } from '../../src/registry/sources/providers/provider.js';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.js';
import { createTempDir, type TempDir } from '../helpers/git.js';
import { UPSTREAM_EXAMPLE } from '../helpers/registry.js';

const context = () => ({ signal: new AbortController().signal, logger: silentLogger });
const document = { version: '1.0.0', data: { servers: [{ name: 'io.example/weather', version: '1.0.0' }], skills: [{ namespace: 'io.example', name: 'pdf', version: '1' }] } };
/** Not JSON, and holding something that looks like a secret, which no message may quote. */
const NOT_JSON = 'servers:\n  - name: io.example/weather\n    token: sk-live-0123456789abcdef\n';

const fetchFile = (options: Omit<FileSourceOptions, 'timeoutMs'> & { timeoutMs?: number }) =>
  createFileSource({ timeoutMs: 1_000, backoffMs: 5, ...options }).fetch(context());

async function parseFailure(options: Omit<FileSourceOptions, 'timeoutMs'>): Promise<Error> {
  const fetched = await fetchFile(options);
  try {
    fetched.parse();
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected parsing to fail');
}

async function fetchFailure(options: Omit<FileSourceOptions, 'timeoutMs'>): Promise<Error> {
  return fetchFile(options).then(
    () => new Error('expected the fetch to fail'),
    (error: unknown) => error as Error,
  );
}

describe('file source', () => {
  let temp: TempDir;
  let upstream: FakeUpstream;

  beforeAll(async () => {
    temp = await createTempDir();
    upstream = await startFakeUpstream();
  });
  afterEach(() => upstream.reset());
  afterAll(async () => {
    await upstream.close();
    await temp.dispose();
  });

  describe('path', () => {
    it('reads a local catalog file', async () => {
      const parsed = (await fetchFile({ path: UPSTREAM_EXAMPLE })).parse();
      expect(parsed.skipped).toEqual([]);
      expect(parsed.records).toHaveLength(12);
      expect(parsed.records[0]?.name).toBe('io.github.stacklok/adb-mysql-mcp-server');
    });

    it('fingerprints the file bytes and notices a change', async () => {
      const path = join(temp.path, 'catalog.json');
      const text = JSON.stringify(document);
      await writeFile(path, text);
      const first = await fetchFile({ path });
      expect(first.fingerprint).toBe(sha256(text));
      expect((await fetchFile({ path })).fingerprint).toBe(first.fingerprint);
      await writeFile(path, JSON.stringify({ ...document, version: '1.0.1' }));
      expect((await fetchFile({ path })).fingerprint).not.toBe(first.fingerprint);
    });

    it('names a file it cannot read and the reason', async () => {
      const path = join(temp.path, 'missing.json');
      const error = await fetchFailure({ path });
      expect(error).toBeInstanceOf(SourceFetchError);
      expect(error.message).toBe(`cannot read ${path}: ENOENT`);
      const directory = await fetchFailure({ path: temp.path });
      expect(directory.message).toBe(`cannot read ${temp.path}: EISDIR`);
    });

    it('reports invalid JSON as a format error that does not quote the file', async () => {
      const path = join(temp.path, 'broken.json');
      await writeFile(path, NOT_JSON);
      const error = await parseFailure({ path });
      expect(error).toBeInstanceOf(CatalogFormatError);
      expect(error.message).toMatch(new RegExp(`^${path} is not valid JSON`));
      expect(error.message).not.toContain('sk-live');
      expect(error.message).not.toContain('servers:');
    });

    it('reports JSON that is not a catalog as a format error', async () => {
      const path = join(temp.path, 'package.json');
      await writeFile(path, JSON.stringify({ name: 'toolyard', version: '1.0.0' }));
      const error = await parseFailure({ path });
      expect(error).toBeInstanceOf(CatalogFormatError);
      expect(error.message).toMatch(/^not a catalog/);
    });
  });

  describe('url', () => {
    it('reads a catalog served over HTTP', async () => {
      upstream.setFile('/catalogs/team.json', JSON.stringify(document));
      const parsed = (await fetchFile({ url: `${upstream.url}/catalogs/team.json` })).parse();
      expect(parsed.records.map((record) => `${record.entryType} ${record.name}`)).toEqual(['server io.example/weather', 'skill io.example/pdf']);
    });

    it('retries a 5xx answer', async () => {
      upstream.setFile('/catalog.json', JSON.stringify(document));
      upstream.failNext(1, 500);
      expect((await fetchFile({ url: `${upstream.url}/catalog.json` })).parse().records).toHaveLength(2);
      expect(upstream.requests).toHaveLength(2);
    });

    it('fails at once on a 404, naming the URL and the status', async () => {
      const url = `${upstream.url}/nothing-here.json`;
      const error = await fetchFailure({ url });
      expect(error).toBeInstanceOf(SourceFetchError);
      expect(error.message).toBe(`${url} answered HTTP 404`);
      expect(upstream.requests).toHaveLength(1);
    });

    it('fails with a time-out message when the server is too slow', async () => {
      upstream.setFile('/slow.json', JSON.stringify(document));
      upstream.setDelay(1_000);
      const url = `${upstream.url}/slow.json`;
      const error = await createFileSource({ url, timeoutMs: 100, backoffMs: 5 })
        .fetch(context())
        .then(
          () => new Error('expected a time-out'),
          (caught: unknown) => caught as Error,
        );
      expect(error).toBeInstanceOf(SourceFetchError);
      expect(error.message).toBe(`${url} did not answer within 0.1s after 4 attempts`);
    });

    it('reports invalid JSON as a format error that does not quote the body', async () => {
      upstream.setFile('/broken.json', NOT_JSON, 'text/yaml');
      const url = `${upstream.url}/broken.json`;
      const error = await parseFailure({ url });
      expect(error).toBeInstanceOf(CatalogFormatError);
      expect(error.message).toMatch(new RegExp(`^${url} is not valid JSON`));
      expect(error.message).not.toContain('sk-live');
    });
  });

  describe('data', () => {
    it('reads a catalog document given as an object', async () => {
      const parsed = (await fetchFile({ data: document })).parse();
      expect(parsed.records.map((record) => record.name)).toEqual(['io.example/weather', 'io.example/pdf']);
    });

    it('reads a string holding the catalog document', async () => {
      const parsed = (await fetchFile({ data: JSON.stringify(document) })).parse();
      expect(parsed.records.map((record) => record.name)).toEqual(['io.example/weather', 'io.example/pdf']);
    });

    it('reads a list of servers given as data', async () => {
      expect((await fetchFile({ data: [{ name: 'io.example/a', version: '1' }] })).parse().records).toHaveLength(1);
    });

    it('gives the same fingerprint for the same data and another for other data', async () => {
      const first = await fetchFile({ data: document });
      expect((await fetchFile({ data: structuredClone(document) })).fingerprint).toBe(first.fingerprint);
      expect((await fetchFile({ data: { ...document, version: '2' } })).fingerprint).not.toBe(first.fingerprint);
    });

    it('reports a string that is not JSON as a format error that does not quote it', async () => {
      const error = await parseFailure({ data: NOT_JSON });
      expect(error).toBeInstanceOf(CatalogFormatError);
      expect(error.message).toMatch(/^file\.data is not valid JSON/);
      expect(error.message).not.toContain('sk-live');
    });

    it('reports data that is not a catalog as a format error', async () => {
      expect(await parseFailure({ data: { hello: 'world' } })).toBeInstanceOf(CatalogFormatError);
      expect(await parseFailure({ data: 'true' })).toBeInstanceOf(CatalogFormatError);
    });
  });
});
