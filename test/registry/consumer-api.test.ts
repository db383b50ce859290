import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestRegistry, EXAMPLE_CATALOG, type TestRegistry } from '../helpers/registry.js';

interface ServerList {
  servers: { server: { name: string; version: string }; _meta: Record<string, { isLatest: boolean; status: string; publishedAt: string }> }[];
  metadata: { count: number; nextCursor?: string };
}

describe('consumer API on the example catalog', () => {
  let registry: TestRegistry;

  beforeAll(async () => {
    registry = await createTestRegistry({
      config: {
        sources: [
          { name: 'internal', managed: {} },
          { name: 'examples', file: { path: EXAMPLE_CATALOG } },
        ],
        registries: [{ name: 'default', sources: ['internal', 'examples'] }],
      },
    });
    await registry.syncNow();
  });
  afterAll(() => registry.dispose());

  it('lists every version, one record per version', async () => {
    const { status, body } = await registry.get<ServerList>('/registry/default/v0.1/servers');
    expect(status).toBe(200);
    expect(body.metadata.count).toBe(6);
    const memory = body.servers.filter((record) => record.server.name === 'dev.toolyard.examples/memory');
    expect(memory.map((record) => [record.server.version, record._meta['io.modelcontextprotocol.registry/official']?.isLatest])).toEqual([
      ['2025.4.25', false],
      ['2025.8.4', true],
    ]);
  });

  it('serves a version by an encoded name', async () => {
    const { status, body } = await registry.get<ServerList['servers'][number]>('/registry/default/v0.1/servers/dev.toolyard.examples%2Fmemory/versions/latest');
    expect(status).toBe(200);
    expect(body.server.version).toBe('2025.8.4');
  });
});
