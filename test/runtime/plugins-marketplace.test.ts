import { copyFile, mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writePlugin } from '../../src/runtime/artifacts/artifacts-testing.js';
import { contentDigest } from '../../src/runtime/artifacts/digest.js';
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

  describe('at project scope, recorded in the lock file', () => {
    const EMPTY = { already_current: [], drifted: [], failed: [], installed: [], missing: [], never_managed: [], pruned: [], removed_from_lock: [] };
    const folder = (root: string) => join(root, '.claude', 'plugins', 'toolyard', 'local-kit');
    const lockOf = async (root: string) => parse(await readFile(join(root, 'toolyard.lock.yaml'), 'utf8')) as { plugins: Record<string, unknown>[] };
    const details = async (root: string) =>
      (await call('GET', `/plugins/local-kit?scope=project&project_root=${encodeURIComponent(root)}`)).json<{ installed_plugin: { marketplace: string; digest: string } }>().installed_plugin;
    let first: string;
    let second: string;

    beforeAll(async () => {
      first = join(work, 'first');
      second = join(work, 'second');
      await mkdir(first);
      await mkdir(second);
    });

    it('writes the marketplace beside the name as asked and the commit it resolved to, and shows it in details and list', async () => {
      const response = await call('POST', '/plugins', { name: 'local-kit', marketplace: market, scope: 'project', project_root: first, clients: ['claude-code'] });
      expect(response.statusCode, response.body).toBe(201);
      expect(response.json()).toMatchObject({ plugin: { marketplace: market, managed: true } });
      expect((await lockOf(first)).plugins).toEqual([
        expect.objectContaining({ name: 'local-kit', source: 'local-kit', marketplace: market, resolvedReference: `${market}@${marketCommit}#plugins/local-kit`, digest: marketCommit, clients: ['claude-code'] }),
      ]);
      expect(await details(first)).toMatchObject({ marketplace: market, digest: marketCommit });
      const listed = await call('GET', `/plugins?project_root=${encodeURIComponent(first)}`);
      expect(listed.json()).toMatchObject({ plugins: [{ metadata: { name: 'local-kit' }, marketplace: market }] });
    });

    it('sync in a fresh project with the copied lock file restores the same files at the pinned commit', async () => {
      await copyFile(join(first, 'toolyard.lock.yaml'), join(second, 'toolyard.lock.yaml'));
      const synced = await call('POST', '/plugins/sync', { project_root: second });
      expect(synced.json()).toEqual({ ...EMPTY, missing: ['local-kit'], installed: ['local-kit'] });
      expect(await contentDigest(folder(second))).toBe(await contentDigest(folder(first)));
      expect(await details(second)).toMatchObject({ marketplace: market, digest: marketCommit });
      expect(await readFile(join(second, 'toolyard.lock.yaml'), 'utf8')).toBe(await readFile(join(first, 'toolyard.lock.yaml'), 'utf8'));
    });

    it('upgrade looks the name up in the marketplace again: a new commit there is upgraded, with old and new digest', async () => {
      const next = await commitTree(join(work, 'repos', 'market'), { 'plugins/local-kit/commands/review.md': '# Review, more carefully\n' });
      const synced = await call('POST', '/plugins/sync', { project_root: second });
      expect(synced.json()).toEqual({ ...EMPTY, already_current: ['local-kit'] });
      const upgraded = await call('POST', '/plugins/upgrade', { project_root: second });
      expect(upgraded.json()).toMatchObject({
        outcomes: [{ name: 'local-kit', status: 'upgraded', old_digest: marketCommit, new_digest: next, new_resolved_reference: `${market}@${next}#plugins/local-kit` }],
      });
      expect(await readFile(join(folder(second), 'commands', 'review.md'), 'utf8')).toBe('# Review, more carefully\n');
      expect((await lockOf(second)).plugins).toEqual([expect.objectContaining({ source: 'local-kit', marketplace: market, digest: next })]);
      expect(await details(second)).toMatchObject({ marketplace: market, digest: next });
      expect((await call('POST', '/plugins/upgrade', { project_root: second })).json()).toMatchObject({ outcomes: [{ status: 'up-to-date' }] });
    });

    it('sync restores a strict: false entry in a fresh project with the manifest its marketplace lists', async () => {
      const [listedIn, fresh] = [join(work, 'listed-in'), join(work, 'listed-fresh')];
      await mkdir(listedIn);
      await mkdir(fresh);
      const installed = await call('POST', '/plugins', { name: 'bare-kit', marketplace: market, scope: 'project', project_root: listedIn, clients: ['claude-code'] });
      expect(installed.statusCode, installed.body).toBe(201);
      await copyFile(join(listedIn, 'toolyard.lock.yaml'), join(fresh, 'toolyard.lock.yaml'));
      const synced = await call('POST', '/plugins/sync', { project_root: fresh });
      expect(synced.json()).toEqual({ ...EMPTY, missing: ['bare-kit'], installed: ['bare-kit'] });
      const bare = (root: string) => join(root, '.claude', 'plugins', 'toolyard', 'bare-kit');
      expect(await contentDigest(bare(fresh))).toBe(await contentDigest(bare(listedIn)));
      expect(JSON.parse(await readFile(join(bare(fresh), '.claude-plugin', 'plugin.json'), 'utf8'))).toMatchObject({ name: 'bare-kit', version: '2.0.0' });
    });

    it('upgrade follows the marketplace’s renames to the entry’s moved branch in another repository', async () => {
      const third = join(work, 'third');
      await mkdir(third);
      const installed = await call('POST', '/plugins', { name: 'old-remote', marketplace: market, scope: 'project', project_root: third, clients: ['claude-code'] });
      expect(installed.statusCode, installed.body).toBe(201);
      expect((await lockOf(third)).plugins).toEqual([expect.objectContaining({ name: 'remote-kit', source: 'old-remote', marketplace: market, digest: otherCommit })]);
      const moved = await commitTree(join(work, 'repos', 'other'), { 'kits/remote-kit/agents/reviewer.md': '# Reviewer, renamed kit\n' });
      expect((await call('POST', '/plugins/upgrade', { project_root: third })).json()).toMatchObject({
        outcomes: [{ name: 'remote-kit', status: 'upgraded', old_digest: otherCommit, new_digest: moved, new_resolved_reference: `git://${daemon.host}/other@${moved}#kits/remote-kit` }],
      });
    });
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
