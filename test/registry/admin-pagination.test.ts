import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabaseTargets } from '../../src/core/db/database-testing.js';
import { createTestRegistry, expectNoServerErrors, type TestRegistry } from '../helpers/registry.js';

/*
 * The admin lists (/v1/sources, /v1/registries and the entry listings of a source and of a registry)
 * are cursor-paginated: `limit` and `cursor` in the query, `metadata {count, nextCursor}` beside the list.
 */

interface Metadata {
  count: number;
  nextCursor?: string;
}
type ListBody = Record<string, unknown[]> & { metadata: Metadata };

const server = (name: string, version: string) => ({ name, version, description: `${name} ${version}` });
const catalog = (servers: object[], skills: object[] = []) => ({ version: '1.0.0', data: { servers, skills } });

describe.each(testDatabaseTargets())('admin list pagination ($name)', (target) => {
  let registry: TestRegistry;

  beforeAll(async () => {
    registry = await createTestRegistry({ target });
    // names whose byte order differs from a dictionary order ("a-b" before "ab", digits before letters)
    for (const name of ['ab', 'a-b', 'zeta', '9lives', 'm']) {
      const data = name === 'ab' ? catalog([server('io.x/one', '1.0.0'), server('io.x/one', '1.1.0'), server('io.x/two', '1.0.0'), server('io.x/three', '2.0.0')], [{ namespace: 'io.x', name: 'skill', version: '1.0.0' }]) : catalog([server(`io.${name}/only`, '1.0.0')]);
      expect((await registry.send('PUT', `/v1/sources/${name}`, { file: { data } })).status).toBe(201);
    }
    for (const name of ['r1', 'r2', 'r3']) expect((await registry.send('PUT', `/v1/registries/${name}`, { sources: ['ab', 'm'] })).status).toBe(201);
    await registry.syncNow();
  });
  afterAll(async () => {
    await expectNoServerErrors(registry);
    await registry.dispose();
  });

  /** Every page of a list at the given size, and the items of all of them in order. */
  const walk = async (path: string, key: string, limit: number) => {
    const pages: unknown[][] = [];
    let cursor: string | undefined;
    do {
      const separator = path.includes('?') ? '&' : '?';
      const response = await registry.get<ListBody>(`${path}${separator}limit=${limit}${cursor === undefined ? '' : `&cursor=${encodeURIComponent(cursor)}`}`);
      expect(response.status, JSON.stringify(response.body)).toBe(200);
      const items = response.body[key] ?? [];
      expect(response.body.metadata.count).toBe(items.length);
      pages.push(items);
      cursor = response.body.metadata.nextCursor;
      expect(pages.length).toBeLessThan(50);
    } while (cursor !== undefined);
    return { pages, items: pages.flat() };
  };
  const names = (items: unknown[]) => items.map((item) => (item as { name: string }).name);

  it('pages /v1/sources in name order, the last page without a cursor', async () => {
    const whole = await registry.get<ListBody>('/v1/sources');
    expect(whole.body.metadata).toEqual({ count: 5 });
    const { pages, items } = await walk('/v1/sources', 'sources', 2);
    expect(pages.map((page) => page.length)).toEqual([2, 2, 1]);
    expect(names(items)).toEqual(names(whole.body.sources ?? []));
    expect(names(items)).toEqual(['9lives', 'a-b', 'ab', 'm', 'zeta']);
  });

  it('pages /v1/registries', async () => {
    const { pages, items } = await walk('/v1/registries', 'registries', 2);
    expect(pages.map((page) => page.length)).toEqual([2, 1]);
    expect(names(items)).toEqual(['r1', 'r2', 'r3']);
  });

  it('pages the entries of a source by whole entries, every version of an entry on one page', async () => {
    const whole = (await registry.get<ListBody>('/v1/sources/ab/entries')).body.entries ?? [];
    const { pages, items } = await walk('/v1/sources/ab/entries', 'entries', 1);
    expect(pages).toHaveLength(4);
    expect(items).toEqual(whole);
    const one = items.find((entry) => (entry as { name: string }).name === 'io.x/one') as { versions: { version: string }[] };
    expect(one.versions.map((version) => version.version)).toEqual(['1.0.0', '1.1.0']);
  });

  it('pages the entries of a registry, one row per version, across its sources', async () => {
    const whole = (await registry.get<ListBody>('/v1/registries/r1/entries')).body.entries ?? [];
    expect(whole).toHaveLength(6);
    for (const limit of [1, 4]) expect((await walk('/v1/registries/r1/entries', 'entries', limit)).items).toEqual(whole);
  });

  it('answers 400 for a cursor it did not issue, or one of another list, and for a limit out of range', async () => {
    const sourcesCursor = (await registry.get<ListBody>('/v1/sources?limit=1')).body.metadata.nextCursor ?? '';
    const entriesCursor = (await registry.get<ListBody>('/v1/sources/ab/entries?limit=1')).body.metadata.nextCursor ?? '';
    const registryEntriesCursor = (await registry.get<ListBody>('/v1/registries/r1/entries?limit=1')).body.metadata.nextCursor ?? '';
    for (const url of [
      '/v1/sources?cursor=not-a-cursor',
      `/v1/registries?cursor=${sourcesCursor}`,
      `/v1/sources/m/entries?cursor=${entriesCursor}`,
      `/v1/sources/ab/entries?cursor=${sourcesCursor}`,
      `/v1/registries/r2/entries?cursor=${registryEntriesCursor}`,
      `/v1/registries/r1/entries?cursor=${Buffer.from(JSON.stringify(['registries/r1/entries', 'x', 'server', 'a', 'b'])).toString('base64url')}`,
      '/v1/sources?limit=0',
      '/v1/sources?limit=501',
      '/v1/registries?limit=1e3',
    ]) {
      const response = await registry.get<{ error: string }>(url);
      expect(response.status, url).toBe(400);
      expect(response.body.error, url).toMatch(/^(cursor|limit)/);
    }
  });
});
