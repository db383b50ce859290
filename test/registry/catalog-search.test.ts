import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabaseTargets } from '../../src/core/db/database-testing.js';
import { encodeCursor } from '../../src/core/http/cursor.js';
import { catalogFile, createTestRegistry, expectNoServerErrors, MCP_INSIGHTS, type TestRegistry } from '../helpers/registry.js';
import { seededRandom } from '../../src/core/random-testing.js';

/**
 * Searching must give exactly what a plain scan of the unfiltered list gives: the same items in the
 * same order, the same pages and the same cursors, for servers (by name, every version or the latest)
 * and for skills and plugins (by name and description), over the public registry crawl.
 */

interface Crawled {
  server: { name: string; version: string; description?: string };
  _meta: Record<string, { isLatest: boolean }>;
}
interface Listed {
  name: string;
  version: string;
  text: string;
}
interface List {
  key: string;
  path: string;
  items: Listed[];
}

const OFFICIAL = 'io.modelcontextprotocol.registry/official';
const SEARCHES = 1_000;
const PAGES_FOLLOWED = 4;


const skillName = (name: string) =>
  name
    .slice(name.indexOf('/') + 1)
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40)
    .replace(/-+$/, '') || 'unnamed';

/**
 * Skills and plugins made of the crawl's latest servers: every third one has an older version whose
 * description the latest no longer has, so a search must read the served version's text only.
 */
function packagesOf(latest: Crawled[], kind: 'skill' | 'plugin', rename: (description: string) => string): Record<string, unknown>[] {
  const seen = new Set<string>();
  const records: Record<string, unknown>[] = [];
  latest.forEach(({ server }, index) => {
    const namespace = server.name.slice(0, server.name.indexOf('/'));
    const name = kind === 'skill' ? skillName(server.name) : server.name.slice(server.name.indexOf('/') + 1).slice(0, 64);
    if (seen.has(`${namespace}/${name}`)) return;
    seen.add(`${namespace}/${name}`);
    const description = rename(server.description ?? '');
    if (index % 3 === 0) records.push({ namespace, name, version: '0.9.0', description: `Retired wording ${index}: ${description.split(' ').reverse().join(' ')}` });
    records.push({ namespace, name, version: '1.0.0', description });
  });
  return records;
}

describe.each(testDatabaseTargets())('catalog search over the public registry crawl on $name', (target) => {
  let registry: TestRegistry;
  const lists: List[] = [];
  const next = seededRandom(16);

  beforeAll(async () => {
    const crawl = JSON.parse(await readFile(MCP_INSIGHTS, 'utf8')) as Crawled[];
    const latest = crawl.filter((record) => record._meta[OFFICIAL]?.isLatest === true);
    // a second source ahead of the crawl takes over every fifth name, with versions and texts of its own
    const taken = latest.filter((_, index) => index % 5 === 0);
    const overlay = {
      version: '1',
      meta: {},
      data: {
        servers: taken.map(({ server }) => ({ name: server.name, version: '0.0.1-overlay', description: `Overlay of ${server.name}` })),
        skills: packagesOf(taken, 'skill', (description) => `Überarbeitet — ${description.toUpperCase()}`),
        plugins: packagesOf(taken, 'plugin', (description) => `ΣΥΝΟΨΗ ${description}`),
      },
    };
    const crawlSource = { version: '1', meta: {}, data: { servers: crawl, skills: packagesOf(latest, 'skill', (d) => d), plugins: packagesOf(latest, 'plugin', (d) => d) } };
    registry = await createTestRegistry({
      target,
      config: {
        sources: [
          { name: 'overlay', file: { path: await catalogFile(overlay) } },
          { name: 'crawl', file: { path: await catalogFile(crawlSource) } },
        ],
        registries: [{ name: 'default', sources: ['overlay', 'crawl'] }],
      },
    });
    await registry.syncNow();
    const base = '/registry/default/v0.1';
    for (const [key, path, field] of [
      ['servers', `${base}/servers`, 'servers'],
      ['latest servers', `${base}/servers?version=latest`, 'servers'],
      ['skills', `${base}/x/dev.toolyard/skills`, 'skills'],
      ['plugins', `${base}/x/dev.toolyard/plugins`, 'plugins'],
    ] as const) {
      lists.push({ key, path, items: await listAll(path, field) });
    }
  }, 120_000);

  afterAll(async () => {
    await expectNoServerErrors(registry);
    await registry.dispose();
  });

  /** The whole unfiltered list, page by page: what a scan filters. */
  async function listAll(path: string, field: 'servers' | 'skills' | 'plugins'): Promise<Listed[]> {
    const items: Listed[] = [];
    let cursor: string | undefined;
    do {
      const page = await fetchPage(path, field, cursor, 100);
      items.push(...page.items);
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    return items;
  }

  async function fetchPage(path: string, field: 'servers' | 'skills' | 'plugins', cursor: string | undefined, limit: number, search?: string) {
    const query = new URLSearchParams({ limit: String(limit), ...(cursor !== undefined && { cursor }), ...(search !== undefined && { search }) });
    const response = await registry.get<Record<string, unknown[]> & { metadata: { nextCursor?: string } }>(`${path}${path.includes('?') ? '&' : '?'}${query.toString()}`);
    expect(response.status).toBe(200);
    const items = (response.body[field] ?? []).map((record) => {
      if (field === 'servers') {
        const { server } = record as { server: { name: string; version: string } };
        return { name: server.name, version: server.version, text: server.name };
      }
      const { namespace, name, version, description } = record as { namespace: string; name: string; version: string; description: string };
      return { name: `${namespace}/${name}`, version, text: `${namespace}/${name}\n${description}` };
    });
    return { items, nextCursor: response.body.metadata.nextCursor };
  }

  /** A substring of a served text with its case shuffled, or now and then a string of odd characters. */
  function substring(list: List): string {
    if (next() < 0.15) {
      const alphabet = ['a', 'e', 'm', 'c', 'p', '-', '.', '/', '0', '1', 'é', 'İ', 'ß', 'σ', 'Σ', 'ς', '😀', ' ', 'x', 'z'];
      return Array.from({ length: 1 + Math.floor(next() * 5) }, () => alphabet[Math.floor(next() * alphabet.length)]).join('');
    }
    const item = list.items[Math.floor(next() * list.items.length)] as Listed;
    // skills and plugins: also the older versions' texts, which the latest no longer hold
    const text = list.key === 'skills' && next() < 0.2 ? `Retired wording ${String(Math.floor(next() * 1_108))}` : item.text;
    const length = 1 + Math.floor(next() * 12);
    const start = Math.floor(next() * Math.max(1, text.length - length));
    return text.slice(start, start + length).replace(/./gsu, (char) => (next() < 0.3 ? char.toUpperCase() : char));
  }

  it(`returns what a scan returns for ${String(SEARCHES)} random substrings, page after page`, async () => {
    let matched = 0;
    for (let search = 0; search < SEARCHES; search++) {
      const list = lists[search % lists.length] as List;
      const needle = substring(list);
      const lower = needle.toLowerCase();
      const field = list.key.endsWith('servers') ? 'servers' : (list.key as 'skills' | 'plugins');
      const expected = list.items.filter((item) => item.text.toLowerCase().includes(lower));
      if (expected.length > 0) matched++;
      // now and then a cursor that no search issued: the key of any item of the list
      const startAt = next() < 0.2 ? Math.floor(next() * list.items.length) : -1;
      const from = list.items[startAt];
      let cursor = from && encodeCursor([from.name, from.version]);
      let remaining = from ? expected.filter((item) => item.name > from.name || (item.name === from.name && item.version > from.version)) : expected;
      const limit = 1 + Math.floor(next() * 30);
      for (let page = 0; page < PAGES_FOLLOWED; page++) {
        const got = await fetchPage(list.path, field, cursor, limit, needle);
        const want = remaining.slice(0, limit);
        const context = `${list.key} search ${JSON.stringify(needle)} page ${String(page + 1)} (limit ${String(limit)})`;
        expect(got.items.map((item) => `${item.name}@${item.version}`), context).toEqual(want.map((item) => `${item.name}@${item.version}`));
        const last = want.at(-1);
        expect(got.nextCursor, context).toBe(remaining.length > limit && last ? encodeCursor([last.name, last.version]) : undefined);
        if (got.nextCursor === undefined) break;
        cursor = got.nextCursor;
        remaining = remaining.slice(limit);
      }
    }
    // the substrings must mostly find something, or the comparison would prove little
    expect(matched).toBeGreaterThan(SEARCHES * 0.7);
  }, 120_000);

  it('searches within a server version and an update time like a scan', async () => {
    const all = lists[0] as List;
    for (const needle of ['mcp', 'GitHub', 'io.github.', 'server']) {
      const expected = all.items.filter((item) => item.text.toLowerCase().includes(needle.toLowerCase()) && item.version === '1.0.0');
      const found = await registry.get<{ servers: { server: { name: string } }[] }>(`/registry/default/v0.1/servers?search=${needle}&version=1.0.0&limit=100`);
      expect(found.body.servers.map((record) => record.server.name)).toEqual(expected.slice(0, 100).map((item) => item.name));
    }
    const since = await registry.get<{ servers: unknown[] }>('/registry/default/v0.1/servers?search=mcp&updated_since=2100-01-01T00:00:00Z');
    expect(since.body.servers).toEqual([]);
  });
});
