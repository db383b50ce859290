import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, spawnCli, waitFor } from '../helpers/cli.js';

const record = (name: string) => ({ server: { name, version: '1.0.0', description: name }, _meta: {} });

/**
 * An upstream registry whose content the test switches; in "stall" mode the second page never
 * answers until released, so a sync can be caught in the middle.
 */
function upstream() {
  let mode: 'old' | 'stall' = 'old';
  let stalled: ServerResponse | undefined;
  let onStall: (() => void) | undefined;
  const newPages = [
    { servers: [record('com.acme/new-1')], metadata: { count: 1, nextCursor: 'page-2' } },
    { servers: [record('com.acme/new-2')], metadata: { count: 1 } },
  ];
  const server = createServer((request, response) => {
    const cursor = new URL(request.url ?? '/', 'http://x').searchParams.get('cursor');
    response.setHeader('content-type', 'application/json');
    if (mode === 'old') return response.end(JSON.stringify({ servers: [record('com.acme/old-1'), record('com.acme/old-2')], metadata: { count: 2 } }));
    if (cursor === 'page-2') {
      stalled = response;
      onStall?.();
      return;
    }
    response.end(JSON.stringify(newPages[0]));
  });
  return {
    server,
    switchToNew: () => (mode = 'stall'),
    stalledOnSecondPage: () => new Promise<void>((resolve) => (stalled ? resolve() : (onStall = resolve))),
    release: () => stalled?.end(JSON.stringify(newPages[1])),
    serveNew: () => {
      stalled = undefined;
      server.removeAllListeners('request');
      server.on('request', (request, response) => {
        const cursor = new URL(request.url ?? '/', 'http://x').searchParams.get('cursor');
        response.setHeader('content-type', 'application/json');
        response.end(JSON.stringify(cursor === 'page-2' ? newPages[1] : newPages[0]));
      });
    },
  };
}

describe('a registry server killed in the middle of a sync', () => {
  let dir: string;
  let fake: ReturnType<typeof upstream>;
  let upstreamPort: number;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'toolyard-crash-'));
    fake = upstream();
    await new Promise<void>((resolve) => fake.server.listen(0, '127.0.0.1', resolve));
    upstreamPort = (fake.server.address() as { port: number }).port;
  });
  afterAll(async () => {
    fake.server.closeAllConnections();
    fake.server.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('keeps serving the old content, then another process takes the sync over', async () => {
    const config = join(dir, 'registry.yaml');
    await writeFile(
      config,
      [
        `database: { dataDir: ${join(dir, 'data')} }`,
        'sources:',
        `  - { name: upstream, api: { endpoint: "http://127.0.0.1:${upstreamPort}", timeout: 60s }, syncPolicy: { interval: 1h } }`,
        'registries:',
        '  - { name: default, sources: [upstream] }',
        'auth: { mode: anonymous }',
        // long enough for the restarted server to come up and answer before the dead one's lease expires
        'sync: { leaseDuration: 15s, pollInterval: 250ms }',
        'logging: { level: warn }',
      ].join('\n'),
    );
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const names = async () => {
      const response = await fetch(`${base}/registry/default/v0.1/servers`);
      const body = (await response.json()) as { servers: { server: { name: string } }[] };
      return body.servers.map((item) => item.server.name);
    };

    const first = spawnCli(['registry', 'serve', '--config', config, '--address', `127.0.0.1:${port}`]);
    await waitFor(async () => ((await names()).length === 2 ? true : undefined), 30_000, 'the first sync');
    expect(await names()).toEqual(['com.acme/old-1', 'com.acme/old-2']);

    fake.switchToNew();
    const stalled = fake.stalledOnSecondPage();
    expect((await fetch(`${base}/v1/sources/upstream/sync`, { method: 'POST' })).status).toBe(202);
    await stalled;
    first.kill('SIGKILL');
    await new Promise((resolve) => first.once('exit', resolve));
    fake.release();
    fake.serveNew();

    const second = spawnCli(['registry', 'serve', '--config', config, '--address', `127.0.0.1:${port}`]);
    try {
      const served = await waitFor(async () => names(), 30_000, 'the restarted server');
      expect(served).toEqual(['com.acme/old-1', 'com.acme/old-2']);
      const status = (await (await fetch(`${base}/v1/sources/upstream`)).json()) as { syncStatus: { phase: string } };
      expect(status.syncStatus.phase).toBe('syncing');
      await waitFor(async () => ((await names()).includes('com.acme/new-2') ? true : undefined), 30_000, 'the take-over sync');
      expect(await names()).toEqual(['com.acme/new-1', 'com.acme/new-2']);
    } finally {
      second.kill('SIGTERM');
      await new Promise((resolve) => second.once('exit', resolve));
    }
  }, 90_000);
});
