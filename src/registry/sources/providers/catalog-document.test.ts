import { describe, expect, it } from 'vitest';
import { CatalogFormatError, parseCatalogDocument } from './catalog-document.js';
import { OFFICIAL_META, PUBLISHER_META } from './records.js';

const weather = { name: 'io.example/weather', version: '1.0.0', description: 'Forecasts' };
const maps = { name: 'io.example/maps', version: '2.1', title: 'Maps' };

const summary = (document: unknown) =>
  parseCatalogDocument(document).records.map((record) => `${record.entryType} ${record.name}@${record.version}`);

describe('parseCatalogDocument: the upstream registry document', () => {
  const document = {
    $schema: 'https://example.dev/upstream-registry.schema.json',
    version: '1.0.0',
    meta: { last_updated: '2025-11-26T00:27:46Z' },
    data: {
      servers: [weather, { ...maps, _meta: { [PUBLISHER_META]: { 'io.example': { 'maps:2.1': { tags: ['geo'] } } } } }],
      skills: [{ namespace: 'io.example', name: 'pdf-tools', version: '1.0.0', description: 'PDF' }],
      plugins: [{ namespace: 'io.example', name: 'Review_Kit', version: '0.3.0' }],
    },
  };

  it('reads servers, skills and plugins', () => {
    expect(summary(document)).toEqual([
      'server io.example/weather@1.0.0',
      'server io.example/maps@2.1',
      'skill io.example/pdf-tools@1.0.0',
      'plugin io.example/Review_Kit@0.3.0',
    ]);
    const maps = parseCatalogDocument(document).records[1];
    expect(maps?.tags).toEqual(['geo']);
    expect(maps?.title).toBe('Maps');
  });

  it('accepts a document with servers only, or with nothing in it', () => {
    expect(summary({ version: '1.0.0', data: { servers: [weather] } })).toEqual(['server io.example/weather@1.0.0']);
    expect(parseCatalogDocument({ version: '1.0.0', meta: {}, data: {} })).toEqual({ records: [], skipped: [] });
  });

  it.each(['servers', 'skills', 'plugins'])('rejects a document whose data.%s is not an array', (key) => {
    expect(() => parseCatalogDocument({ data: { [key]: { name: 'x' } } })).toThrow(new CatalogFormatError(`data.${key} must be an array`));
  });

  it('skips invalid records, naming the list, the index and the problem', () => {
    const parsed = parseCatalogDocument({
      data: {
        servers: [weather, { name: 'no-slash', version: '1.0.0' }, 'not an object', maps],
        skills: [{ namespace: 'io.example', name: 'Bad_Name', version: '1' }, { namespace: 'io.example', name: 'ok', version: '1' }],
        plugins: [{ namespace: 'io.example', name: 'p' }],
      },
    });
    expect(parsed.records.map((record) => record.name)).toEqual(['io.example/weather', 'io.example/maps', 'io.example/ok']);
    expect(parsed.skipped).toEqual([
      expect.stringMatching(/^data\.servers\[1\]\.name: "no-slash" must be/),
      'data.servers[2].server: must be an object',
      expect.stringMatching(/^data\.skills\[0\]\.name: "Bad_Name" must be/),
      'data.plugins[0].version: must be a non-empty string',
    ]);
  });
});

describe('parseCatalogDocument: MCP Registry API records', () => {
  const apiRecord = (server: Record<string, unknown>, official: Record<string, unknown> = {}) => ({
    server,
    _meta: { [OFFICIAL_META]: { status: 'active', publishedAt: '2025-09-08T23:47:09Z', isLatest: true, ...official } },
  });

  it('reads a list of {server, _meta} records with the registry metadata beside each server', () => {
    const parsed = parseCatalogDocument([apiRecord(weather, { status: 'deprecated', statusMessage: 'moved' }), apiRecord(maps)]);
    expect(parsed.skipped).toEqual([]);
    expect(parsed.records.map((record) => [record.name, record.status, record.statusMessage])).toEqual([
      ['io.example/weather', 'deprecated', 'moved'],
      ['io.example/maps', 'active', null],
    ]);
    expect(parsed.records[0]?.publishedAt).toEqual(new Date('2025-09-08T23:47:09Z'));
    // the stored body is the server itself, not the envelope
    expect(JSON.parse(parsed.records[0]?.body ?? '')).toEqual(weather);
  });

  it('reads an API list response {servers: [...], metadata}', () => {
    expect(summary({ servers: [apiRecord(weather), apiRecord(maps)], metadata: { count: 2 } })).toEqual([
      'server io.example/weather@1.0.0',
      'server io.example/maps@2.1',
    ]);
  });

  it('skips invalid records with the index of each', () => {
    const parsed = parseCatalogDocument({ servers: [apiRecord(weather), apiRecord({ name: 'io.example/x' }), { server: null }] });
    expect(parsed.records).toHaveLength(1);
    expect(parsed.skipped).toEqual(['servers[1].version: must be a non-empty string', 'servers[2].server: must be an object']);
  });
});

describe('parseCatalogDocument: a plain list of server.json objects', () => {
  it('reads each object as a server', () => {
    expect(summary([weather, maps])).toEqual(['server io.example/weather@1.0.0', 'server io.example/maps@2.1']);
  });

  it('reads an empty list as an empty catalog', () => {
    expect(parseCatalogDocument([])).toEqual({ records: [], skipped: [] });
  });

  it('skips invalid items, naming the index', () => {
    const parsed = parseCatalogDocument([weather, 42, { ...maps, version: '' }]);
    expect(parsed.records.map((record) => record.name)).toEqual(['io.example/weather']);
    expect(parsed.skipped).toEqual(['servers[1].server: must be an object', 'servers[2].version: must be a non-empty string']);
  });
});

describe('parseCatalogDocument: documents that are not catalogs', () => {
  it.each([
    ['null', null],
    ['a string', 'servers'],
    ['a number', 3],
    ['true', true],
  ])('throws CatalogFormatError for %s', (_case, document) => {
    expect(() => parseCatalogDocument(document)).toThrow(new CatalogFormatError('a catalog must be a JSON object or array'));
  });

  it.each([
    ['an empty object', {}],
    ['a package.json', { name: 'toolyard', version: '0.1.0', dependencies: {} }],
    ['servers that is not a list', { servers: { 'io.example/weather': weather } }],
    ['data that is a list', { data: [weather] }],
  ])('throws CatalogFormatError for %s, saying what a catalog looks like', (_case, document) => {
    expect(() => parseCatalogDocument(document)).toThrow(CatalogFormatError);
    expect(() => parseCatalogDocument(document)).toThrow(/not a catalog: expected \{data: \{servers: \[\.\.\.\]\}\}/);
  });
});
