import { readFile } from 'node:fs/promises';
import { beforeAll, describe, expect, it } from 'vitest';
import { browse, indexPackages, indexServers, type BrowseIndex } from '../../src/runtime/registry/browse.js';
import { parseCatalog, type Catalog } from '../../src/runtime/registry/catalog.js';
import type { Json } from '../../src/runtime/registry/server-json.js';
import { seededRandom } from '../../src/core/random-testing.js';

/**
 * The browse API's `q` over the public registry crawl: the index must find exactly the records a
 * plain scan finds (every word in the lower-cased name, title, description or tags), in catalog order,
 * with the same totals and pages.
 */

const MCP_INSIGHTS = new URL('../fixtures/mcp-insights-servers.json', import.meta.url).pathname;
const QUERIES = 1_000;


const text = (value: unknown) => (typeof value === 'string' ? value : '');

/** The scan the index replaces, field for field. */
function scan(records: Json[], fields: (record: Json, index: number) => string[], q: string): Json[] {
  const words = q.toLowerCase().split(/\s+/).filter(Boolean);
  return records.filter((record, index) => {
    const haystack = fields(record, index).join('\n').toLowerCase();
    return words.every((word) => haystack.includes(word));
  });
}

describe('browse search over the public registry crawl', () => {
  let catalog: Catalog;
  const next = seededRandom(61);

  beforeAll(async () => {
    const crawl = JSON.parse(await readFile(MCP_INSIGHTS, 'utf8')) as { server: { name: string; description?: string } }[];
    const skills = crawl.map(({ server }, index) => ({
      namespace: server.name.slice(0, server.name.indexOf('/')),
      name: `skill-${String(index)}`,
      version: '1.0.0',
      description: server.description,
      metadata: { tags: index % 2 === 0 ? ['Ünïcode-Tag', 'ΣΟΦΙΑ'] : ['plain'] },
    }));
    catalog = parseCatalog({ version: '1', meta: { last_updated: '2025-12-18T00:00:00Z' }, data: { servers: crawl, skills, plugins: [] } }, '2025-12-18T00:00:00Z');
  });

  /** One to three words cut from a record's texts, cases shuffled, sometimes a stray word. */
  function query(haystacks: string[]): string {
    const words = Array.from({ length: 1 + Math.floor(next() * 3) }, () => {
      if (next() < 0.1) return ['xq', 'é', 'σοφ', 'zzz-none', 'mcp', 'a'][Math.floor(next() * 6)] as string;
      const source = haystacks[Math.floor(next() * haystacks.length)] ?? '';
      const length = 1 + Math.floor(next() * 10);
      const start = Math.floor(next() * Math.max(1, source.length - length));
      return source.slice(start, start + length).replace(/./gsu, (char) => (next() < 0.3 ? char.toUpperCase() : char));
    });
    return words.join(next() < 0.5 ? ' ' : '  \t');
  }

  it(`finds what a scan finds for ${String(QUERIES)} random queries`, () => {
    const servers = catalog.servers;
    const serverFields = (_: Json, index: number) => {
      const server = servers[index];
      return server ? [server.fullName, text(server.record.title), text(server.record.description), ...server.tags] : [];
    };
    const skillFields = (record: Json) => [`${text(record.namespace)}/${text(record.name)}`, text(record.title), text(record.description), ...((record.metadata as { tags: string[] }).tags)];
    const lists: [BrowseIndex, Json[], (record: Json, index: number) => string[]][] = [
      [indexServers(catalog), servers.map((server) => server.record), serverFields],
      [indexPackages(catalog.skills), catalog.skills, skillFields],
    ];
    let matched = 0;
    for (let run = 0; run < QUERIES; run++) {
      const [index, records, fields] = lists[run % lists.length] as (typeof lists)[number];
      const q = query(records.map((record, at) => fields(record, at).join(' ')));
      const expected = scan(records, fields, q);
      if (expected.length > 0) matched++;
      const limit = 1 + Math.floor(next() * 50);
      const page = 1 + Math.floor(next() * 3);
      const got = browse(index, { q, page, limit });
      expect(got.metadata, q).toEqual({ limit, page, total: expected.length });
      expect(got.items, q).toEqual(expected.slice((page - 1) * limit, page * limit));
    }
    expect(matched).toBeGreaterThan(QUERIES * 0.6);
  });

  it('lists everything, in catalog order, for an empty or blank q', () => {
    const index = indexServers(catalog);
    for (const q of [undefined, '', '   ']) {
      const got = browse(index, { ...(q !== undefined && { q }), page: 2, limit: 100 });
      expect(got.metadata.total).toBe(catalog.servers.length);
      expect(got.items).toEqual(catalog.servers.slice(100, 200).map((server) => server.record));
    }
  });
});
