import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writePlugin } from '../../src/runtime/artifacts/artifacts-testing.js';
import { commitTree, startGitDaemon, type GitDaemon } from '../../src/runtime/artifacts/git-testing.js';
import { entrySource, findEntry, parseMarketplace } from '../../src/runtime/plugins/marketplace.js';
import { testRuntime, type TestRuntime } from './fixtures.js';

const API = '/api/v1beta';
const PLUGIN_FILES = ['.claude-plugin/plugin.json', 'commands/review.md', 'agents/reviewer.md', 'skills/code-style/SKILL.md', 'hooks/hooks.json', '.mcp.json'];

describe('the local API: plugins from a marketplace', () => {
  let runtime: TestRuntime;
  let work: string;
  let daemon: GitDaemon;
  let marketCommit: string;
  let otherCommit: string;
  let market: string;
  const call = (method: 'GET' | 'POST', url: string, payload?: object) => runtime.app.http.inject({ method, url: `${API}${url}`, ...(payload !== undefined && { payload }) });

  const pluginFiles = async (name: string, prefix: string, skip: string[] = []): Promise<Record<string, string>> => {
    const source = await writePlugin(join(work, 'src'), name);
    const files: Record<string, string> = {};
    for (const path of PLUGIN_FILES.filter((item) => !skip.includes(item))) files[`${prefix}/${path}`] = await readFile(join(source, path), 'utf8');
    return files;
  };

  beforeAll(async () => {
    runtime = await testRuntime({ supervisor: 'fake' });
    work = await mkdtemp(join(tmpdir(), 'toolyard-marketplace-'));
    await mkdir(join(work, 'repos'));
    daemon = await startGitDaemon(join(work, 'repos'));
    otherCommit = await commitTree(join(work, 'repos', 'other'), { ...(await pluginFiles('remote-kit', 'kits/remote-kit')), ...(await pluginFiles('bare-kit', 'bare-kit', ['.claude-plugin/plugin.json'])) });
    const listing = {
      name: 'team',
      renames: { 'old-remote': 'remote-kit' },
      plugins: [
        { name: 'local-kit', source: './plugins/local-kit' },
        { name: 'remote-kit', source: { source: 'git-subdir', url: `git://${daemon.host}/other`, path: 'kits/remote-kit', ref: 'main' } },
        { name: 'bare-kit', description: 'Listed only here', version: '2.0.0', category: 'development', strict: false, source: { source: 'url', url: `git://${daemon.host}/other`, sha: otherCommit, path: 'bare-kit' } },
      ],
    };
    marketCommit = await commitTree(join(work, 'repos', 'market'), { ...(await pluginFiles('local-kit', 'plugins/local-kit')), '.claude-plugin/marketplace.json': JSON.stringify(listing) });
    market = `git://${daemon.host}/market`;
  });
  afterAll(async () => {
    await daemon.stop();
    await runtime.close();
    await rm(work, { recursive: true, force: true });
  });

  it('installs a plugin kept inside the marketplace repository, pinned to its commit', async () => {
    const response = await call('POST', '/plugins', { name: 'local-kit', marketplace: market, clients: ['claude-code'] });
    expect(response.statusCode).toBe(201);
    expect(response.json()).toMatchObject({ plugin: { reference: `${market}@${marketCommit}#plugins/local-kit`, digest: marketCommit, metadata: { name: 'local-kit' } } });
    await expect(readFile(join(runtime.home, '.claude', 'plugins', 'toolyard', 'local-kit', 'commands', 'review.md'), 'utf8')).resolves.toBeTypeOf('string');
  });

  it('follows renames and git-subdir sources into another repository', async () => {
    const response = await call('POST', '/plugins', { name: 'old-remote', marketplace: market, clients: ['claude-code'] });
    expect(response.statusCode).toBe(201);
    expect(response.json()).toMatchObject({ plugin: { reference: `git://${daemon.host}/other@${otherCommit}#kits/remote-kit`, digest: otherCommit, metadata: { name: 'remote-kit' } } });
  });

  it('previews a strict: false entry with the listing as its manifest', async () => {
    const response = await call('GET', `/plugins/content?ref=bare-kit&marketplace=${encodeURIComponent(market)}`);
    expect(response.statusCode).toBe(200);
    const body = response.json<{ name: string; version: string; manifest: string }>();
    expect(body).toMatchObject({ name: 'bare-kit', version: '2.0.0' });
    expect(JSON.parse(body.manifest)).toEqual({ name: 'bare-kit', description: 'Listed only here', version: '2.0.0' });
  });

  it('reads a marketplace by absolute path, and answers 404 for a name it does not list', async () => {
    const path = join(work, 'repos', 'market', '.claude-plugin', 'marketplace.json');
    const local = await call('GET', `/plugins/content?ref=local-kit&marketplace=${encodeURIComponent(path)}`);
    expect([local.statusCode, local.json<{ name: string }>().name]).toEqual([200, 'local-kit']);
    const unknown = await call('POST', '/plugins', { name: 'nope', marketplace: market, clients: ['claude-code'] });
    expect([unknown.statusCode, unknown.json()]).toEqual([404, { error: `marketplace ${market} lists no plugin nope` }]);
    const relativePath = await call('POST', '/plugins', { name: 'local-kit', marketplace: 'market.json', clients: ['claude-code'] });
    expect(relativePath.statusCode).toBe(400);
  });

  it('fetches a marketplace file over http on loopback, where only sources in other repositories can be reached', async () => {
    const listing = await readFile(join(work, 'repos', 'market', '.claude-plugin', 'marketplace.json'));
    const server = createServer((_, response) => response.end(listing)).listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    try {
      const url = encodeURIComponent(`http://127.0.0.1:${(server.address() as AddressInfo).port}/marketplace.json`);
      const remote = await call('GET', `/plugins/content?ref=remote-kit&marketplace=${url}`);
      expect([remote.statusCode, remote.json<{ name: string }>().name]).toEqual([200, 'remote-kit']);
      const inside = await call('GET', `/plugins/content?ref=local-kit&marketplace=${url}`);
      expect(inside.statusCode).toBe(400);
      expect(inside.json<{ error: string }>().error).toContain('give its git:// repository instead');
    } finally {
      server.close();
    }
  });
});

describe('the official Claude Code marketplace', () => {
  it('resolves every entry to a folder of the marketplace or a pinned git reference', async () => {
    const marketplace = parseMarketplace(await readFile(join(import.meta.dirname, '..', 'fixtures', 'claude-plugins-official-marketplace.json'), 'utf8'), 'official');
    expect(marketplace.plugins).toHaveLength(286);
    const sources = marketplace.plugins.map(entrySource);
    expect(sources.filter((source) => 'relative' in source)).toHaveLength(53);
    for (const source of sources) if ('reference' in source) expect(source.reference).toMatch(/^git:\/\/github\.com\/[\w.-]+\/[\w.-]+@[0-9a-f]{40}(#[\w./-]+)?$/);
    expect(entrySource(findEntry(marketplace, 'adlc', 'official'))).toEqual({ reference: 'git://github.com/SalesforceAIResearch/agentforce-adlc.git@d16d14ac7f817336e21bf9392cf51b6cac6194d8' });
    expect(entrySource(findEntry(marketplace, '42crunch-api-security-testing', 'official'))).toEqual({
      reference: 'git://github.com/42Crunch-AI/claude-plugins.git@30287f5e3f122a646d1ac5ca3ab96e130c52a3ad#plugins/api-security-testing',
    });
  });
});
