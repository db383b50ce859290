import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writePlugin } from '../../src/runtime/artifacts/artifacts-testing.js';
import { commitTree, startGitDaemon, type GitDaemon } from '../../src/runtime/artifacts/git-testing.js';
import { testRuntime, type TestRuntime } from './fixtures.js';

const API = '/api/v1beta';
const COMPONENTS = { agents: 1, commands: 1, hooks: 2, mcpServers: 1, skills: 1 };

describe('the local API: installing plugins for Claude Code and Codex', () => {
  let runtime: TestRuntime;
  let work: string;
  let daemon: GitDaemon;
  let commit: string;
  let project: string;
  const call = (method: 'GET' | 'POST' | 'DELETE', url: string, payload?: object) => runtime.app.http.inject({ method, url: `${API}${url}`, ...(payload !== undefined && { payload }) });
  const json = async (path: string) => JSON.parse(await readFile(path, 'utf8')) as Record<string, unknown>;
  const home = (...parts: string[]) => join(runtime.home, ...parts);

  beforeAll(async () => {
    runtime = await testRuntime({ supervisor: 'fake' });
    work = await mkdtemp(join(tmpdir(), 'toolyard-plugin-'));
    const source = await writePlugin(join(work, 'src'), 'review-kit');
    const files: Record<string, string> = {};
    for (const path of ['.claude-plugin/plugin.json', 'commands/review.md', 'agents/reviewer.md', 'skills/code-style/SKILL.md', 'hooks/hooks.json', '.mcp.json']) {
      files[`plugins/review-kit/${path}`] = await readFile(join(source, path), 'utf8');
    }
    commit = await commitTree(join(work, 'repos', 'market'), files);
    daemon = await startGitDaemon(join(work, 'repos'));
    project = join(work, 'project');
    await mkdir(project);
  });
  afterAll(async () => {
    await daemon.stop();
    await runtime.close();
    await rm(work, { recursive: true, force: true });
  });

  it('installs a plugin for both clients in user scope: trees, marketplaces and Claude Code settings', async () => {
    await mkdir(home('.claude'), { recursive: true });
    await writeFile(home('.claude', 'settings.json'), '{\n  // mine\n  "theme": "dark"\n}\n');
    await mkdir(home('.agents', 'plugins'), { recursive: true });
    await writeFile(home('.agents', 'plugins', 'marketplace.json'), JSON.stringify({ name: 'mine', plugins: [{ name: 'other', source: { source: 'local', path: './other' } }] }));
    const reference = `git://${daemon.host}/market@${commit}#plugins/review-kit`;
    const response = await call('POST', '/plugins', { name: reference, clients: ['all'] });
    expect(response.statusCode).toBe(201);
    expect(response.headers.location).toBe('/api/v1beta/plugins/review-kit?scope=user');
    expect(response.json()).toEqual({
      plugin: {
        clients: ['claude-code', 'codex'],
        components: COMPONENTS,
        dependencies: [],
        digest: commit,
        installed_at: expect.any(String) as string,
        managed: false,
        marketplace: '',
        metadata: { author: 'Ada', description: 'The review-kit plugin', keywords: ['review'], license: 'MIT', name: 'review-kit', version: '1.0.0' },
        project_root: '',
        reference,
        scope: 'user',
        signature: '',
        status: 'installed',
        tag: '',
      },
      provenance: null,
      unsigned: true,
    });
    const claudeFolder = home('.claude', 'plugins', 'toolyard');
    expect((await readdir(join(claudeFolder, 'review-kit'))).sort()).toEqual(['.claude-plugin', '.mcp.json', 'agents', 'commands', 'hooks', 'skills']);
    expect(await json(join(claudeFolder, '.claude-plugin', 'marketplace.json'))).toEqual({
      name: 'toolyard',
      owner: { name: 'Toolyard' },
      plugins: [{ name: 'review-kit', source: './review-kit', description: 'The review-kit plugin', version: '1.0.0' }],
    });
    const settings = await readFile(home('.claude', 'settings.json'), 'utf8');
    expect(settings).toContain('// mine');
    expect(settings).toContain('"theme": "dark"');
    expect(settings).toContain('"review-kit@toolyard": true');
    expect(settings).toContain(`"path": "${claudeFolder}"`);
    expect(await readFile(home('.agents', 'plugins', 'toolyard', 'review-kit', 'commands', 'review.md'), 'utf8')).toBe('# Review\n');
    expect(await json(home('.agents', 'plugins', 'marketplace.json'))).toEqual({
      name: 'mine',
      plugins: [
        { name: 'other', source: { source: 'local', path: './other' } },
        { name: 'review-kit', source: { source: 'local', path: './toolyard/review-kit' }, policy: { installation: 'AVAILABLE', authentication: 'ON_INSTALL' }, category: 'Productivity' },
      ],
    });
  });

  it('shows what Codex cannot load, and that no client degrades in project scope', async () => {
    const details = await call('GET', '/plugins/review-kit');
    expect(details.json()).toMatchObject({
      installed_plugin: { components: COMPONENTS },
      metadata: { name: 'review-kit', keywords: ['review'] },
      project_scope_degraded_clients: [],
      provenance: null,
      trust_unrecorded: false,
      unmaterialized_components: { codex: ['agents', 'commands'] },
      unsigned: true,
    });
  });

  it('installs a local build in project scope, enabled in the project settings and pinned in the lock file', async () => {
    expect((await call('POST', '/plugins/build', { path: join(work, 'src', 'review-kit') })).json()).toEqual({ reference: 'review-kit:1.0.0' });
    const response = await call('POST', '/plugins', { name: 'review-kit:1.0.0', scope: 'project', project_root: project, clients: ['claude-code'] });
    expect(response.statusCode).toBe(201);
    expect(await json(join(project, '.claude', 'settings.local.json'))).toEqual({
      enabledPlugins: { 'review-kit@toolyard': true },
      extraKnownMarketplaces: { toolyard: { source: { source: 'directory', path: join(project, '.claude', 'plugins', 'toolyard') } } },
    });
    const lock = parse(await readFile(join(project, 'toolyard.lock.yaml'), 'utf8')) as { plugins: { name: string; resolvedReference: string }[] };
    expect(lock.plugins.map((entry) => [entry.name, entry.resolvedReference])).toEqual([['review-kit', 'review-kit:1.0.0']]);
    expect((await call('GET', '/plugins?client=codex')).json<{ plugins: { scope: string }[] }>().plugins.map((plugin) => plugin.scope)).toEqual(['user']);
  });

  it('previews the raw manifest', async () => {
    const response = await call('GET', `/plugins/content?ref=${encodeURIComponent('review-kit:1.0.0')}`);
    expect(response.json()).toMatchObject({ name: 'review-kit', version: '1.0.0', license: 'MIT', manifest: await readFile(join(work, 'src', 'review-kit', '.claude-plugin', 'plugin.json'), 'utf8') });
  });

  it('uninstalls: trees and its entries go, everything else in the files stays', async () => {
    expect((await call('DELETE', '/plugins/review-kit')).statusCode).toBe(204);
    await expect(readdir(home('.claude', 'plugins', 'toolyard', 'review-kit'))).rejects.toThrow('ENOENT');
    await expect(readdir(home('.agents', 'plugins', 'toolyard', 'review-kit'))).rejects.toThrow('ENOENT');
    const settings = await readFile(home('.claude', 'settings.json'), 'utf8');
    expect(settings).toContain('// mine');
    expect(settings).not.toContain('review-kit@toolyard');
    expect((await json(home('.agents', 'plugins', 'marketplace.json'))).plugins).toEqual([{ name: 'other', source: { source: 'local', path: './other' } }]);
    expect((await call('DELETE', `/plugins/review-kit?scope=project&project_root=${encodeURIComponent(project)}`)).statusCode).toBe(204);
    expect(parse(await readFile(join(project, 'toolyard.lock.yaml'), 'utf8'))).toEqual({ version: 1, plugins: [] });
  });

  it('answers 400 for clients that take no plugins', async () => {
    const cursor = await call('POST', '/plugins', { name: 'review-kit:1.0.0', clients: ['cursor'] });
    expect([cursor.statusCode, cursor.json()]).toEqual([400, { error: 'clients cursor cannot take plugins; choose among claude-code, codex or ["all"]' }]);
  });
});
