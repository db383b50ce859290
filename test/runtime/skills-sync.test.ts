import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeSkill } from '../../src/runtime/artifacts/artifacts-testing.js';
import { contentDigest } from '../../src/runtime/artifacts/digest.js';
import { commitTree, startGitDaemon, type GitDaemon } from '../../src/runtime/artifacts/git-testing.js';
import { testRuntime, type TestRuntime } from './fixtures.js';

const API = '/api/v1beta';
const SKILL_MD = '---\nname: code-review\ndescription: Reviews code.\nmetadata:\n  version: "1.0.0"\n---\n# Code review\n';
const EMPTY = { already_current: [], drifted: [], failed: [], installed: [], missing: [], never_managed: [], pruned: [], removed_from_lock: [] };

describe('the local API: the project lock file and sync of skills', () => {
  let runtime: TestRuntime;
  let work: string;
  let daemon: GitDaemon;
  let commit: string;
  let first: string;
  let second: string;
  const call = (method: 'GET' | 'POST', url: string, payload?: object) => runtime.app.http.inject({ method, url: `${API}${url}`, ...(payload !== undefined && { payload }) });
  const sync = (projectRoot: string, extra: object = {}) => call('POST', '/skills/sync', { project_root: projectRoot, ...extra });
  const lockOf = async (projectRoot: string) => parse(await readFile(join(projectRoot, 'toolyard.lock.yaml'), 'utf8')) as { version: number; skills: Record<string, unknown>[] };

  beforeAll(async () => {
    runtime = await testRuntime({ supervisor: 'fake' });
    work = await mkdtemp(join(tmpdir(), 'toolyard-skill-sync-'));
    commit = await commitTree(join(work, 'repos', 'team'), { 'code-review/SKILL.md': SKILL_MD });
    daemon = await startGitDaemon(join(work, 'repos'));
    first = join(work, 'first');
    second = join(work, 'second');
    await mkdir(first);
    await mkdir(second);
    await call('POST', '/skills/build', { path: await writeSkill(work, 'lint-rules', { version: '2.0.0' }) });
  });
  afterAll(async () => {
    await daemon.stop();
    await runtime.close();
    await rm(work, { recursive: true, force: true });
  });

  it('records project installs in toolyard.lock.yaml, sorted, keeping keys it does not know', async () => {
    await writeFile(join(first, 'toolyard.lock.yaml'), 'version: 1\nowner: platform-team\n');
    const source = `git://${daemon.host}/team#code-review`;
    const installed = await call('POST', '/skills', { name: source, scope: 'project', project_root: first, clients: ['claude-code', 'cursor'] });
    expect(installed.json<{ skill: { managed: boolean } }>().skill.managed).toBe(true);
    await call('POST', '/skills', { name: 'lint-rules:2.0.0', scope: 'project', project_root: first, clients: ['claude-code'] });
    const build = (await call('GET', '/skills/builds')).json<{ builds: { digest: string }[] }>().builds[0]?.digest;
    expect(await lockOf(first)).toEqual({
      version: 1,
      owner: 'platform-team',
      skills: [
        {
          name: 'code-review',
          version: '1.0.0',
          source,
          resolvedReference: `git://${daemon.host}/team@${commit}#code-review`,
          digest: commit,
          contentDigest: await contentDigest(join(first, '.claude/skills/code-review')),
          clients: ['claude-code', 'cursor'],
          unsigned: true,
        },
        expect.objectContaining({ name: 'lint-rules', source: 'lint-rules:2.0.0', resolvedReference: 'lint-rules:2.0.0', digest: build, clients: ['claude-code'] }),
      ],
    });
  });

  it('restores exactly the same files in a fresh project from a copy of the lock file', async () => {
    await copyFile(join(first, 'toolyard.lock.yaml'), join(second, 'toolyard.lock.yaml'));
    const response = await sync(second);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ ...EMPTY, missing: ['code-review', 'lint-rules'], installed: ['code-review', 'lint-rules'] });
    for (const folder of ['.claude/skills/code-review', '.cursor/skills/code-review', '.claude/skills/lint-rules']) {
      expect(await contentDigest(join(second, folder))).toBe(await contentDigest(join(first, folder)));
    }
    const listed = (await call('GET', `/skills?project_root=${encodeURIComponent(second)}`)).json<{ skills: { managed: boolean; digest: string }[] }>().skills;
    expect(listed.map((skill) => [skill.managed, skill.digest])).toEqual([
      [true, commit],
      [true, expect.stringMatching(/^sha256:/) as string],
    ]);
  });

  it('finds a current project current without contacting anything', async () => {
    await daemon.stop();
    expect((await sync(second)).json()).toEqual({ ...EMPTY, already_current: ['code-review', 'lint-rules'] });
  });

  it('reports drift and a source it cannot reach as failed, leaving the files as they were', async () => {
    const edited = join(second, '.cursor/skills/code-review/SKILL.md');
    await writeFile(edited, 'edited by hand\n');
    expect((await sync(second, { check: true })).json()).toEqual({ ...EMPTY, already_current: ['lint-rules'], drifted: ['code-review'] });
    const response = (await sync(second)).json<typeof EMPTY & { failed: { name: string; reason: string }[] }>();
    expect(response.drifted).toEqual(['code-review']);
    expect(response.failed).toEqual([{ name: 'code-review', reason: 'registry-unreachable', error: expect.stringContaining('could not be fetched') as string }]);
    expect(await readFile(edited, 'utf8')).toBe('edited by hand\n');
  });

  it('reinstalls drifted files at the pin once the source is back', async () => {
    daemon = await startGitDaemon(join(work, 'repos'), daemon.port);
    expect((await sync(second)).json()).toEqual({ ...EMPTY, already_current: ['lint-rules'], drifted: ['code-review'], installed: ['code-review'] });
    expect(await readFile(join(second, '.cursor/skills/code-review/SKILL.md'), 'utf8')).toBe(SKILL_MD);
  });

  it('fails an entry whose build tag now names other content, as digest-missing', async () => {
    const moved = join(work, 'moved');
    await mkdir(moved);
    await copyFile(join(first, 'toolyard.lock.yaml'), join(moved, 'toolyard.lock.yaml'));
    await call('POST', '/skills/build', { path: await writeSkill(join(work, 'v3'), 'lint-rules', { version: '2.0.0', description: 'Rebuilt.' }), tag: 'lint-rules:2.0.0' });
    const result = (await sync(moved)).json<typeof EMPTY & { failed: { name: string; reason: string }[] }>();
    expect(result.failed).toEqual([{ name: 'lint-rules', reason: 'digest-missing', error: expect.stringMatching(/^lint-rules:2\.0\.0 now names sha256:[0-9a-f]{64}; sha256:[0-9a-f]{64} is no longer there$/) as string }]);
    await expect(readFile(join(moved, '.claude/skills/lint-rules/SKILL.md'))).rejects.toThrow('ENOENT');
  });

  it('reports entries removed from the lock file, and prunes them when asked', async () => {
    const lock = await lockOf(second);
    await writeFile(join(second, 'toolyard.lock.yaml'), JSON.stringify({ ...lock, skills: lock.skills.filter((entry) => entry.name !== 'lint-rules') }));
    expect((await sync(second)).json()).toEqual({ ...EMPTY, already_current: ['code-review'], removed_from_lock: ['lint-rules'] });
    expect((await sync(second, { prune: true })).json()).toEqual({ ...EMPTY, already_current: ['code-review'], removed_from_lock: ['lint-rules'], pruned: ['lint-rules'] });
    await expect(readFile(join(second, '.claude/skills/lint-rules/SKILL.md'))).rejects.toThrow('ENOENT');
  });

  it('reports an install the lock file never had, and adopts it when asked', async () => {
    const adopting = join(work, 'adopting');
    await mkdir(adopting);
    await call('POST', '/skills', { name: 'lint-rules:2.0.0', scope: 'project', project_root: adopting, clients: ['kiro'] });
    // as an install made before the project kept a lock file: recorded, never managed
    const state = join(runtime.env.XDG_STATE_HOME ?? '', 'toolyard', 'runtime', 'skills.json');
    const records = JSON.parse(await readFile(state, 'utf8')) as { records: { project_root: string; managed: boolean }[] };
    for (const record of records.records) if (record.project_root === adopting) record.managed = false;
    await writeFile(state, JSON.stringify(records));
    await rm(join(adopting, 'toolyard.lock.yaml'));
    expect((await sync(adopting)).json()).toEqual({ ...EMPTY, never_managed: ['lint-rules'] });
    expect((await sync(adopting, { adopt: true })).json()).toEqual({ ...EMPTY, never_managed: ['lint-rules'] });
    expect((await lockOf(adopting)).skills.map((entry) => [entry.name, entry.clients])).toEqual([['lint-rules', ['kiro']]]);
    expect((await sync(adopting)).json()).toEqual({ ...EMPTY, already_current: ['lint-rules'] });
    expect((await call('GET', `/skills/lint-rules?scope=project&project_root=${encodeURIComponent(adopting)}`)).json()).toMatchObject({ installed_skill: { managed: true } });
  });

  it('answers 400 for a bad lock file or project root and 501 for a newer lock format', async () => {
    const bad = join(work, 'bad');
    await mkdir(bad);
    await writeFile(join(bad, 'toolyard.lock.yaml'), 'version: 1\nskills: [{name: x}]\n');
    expect((await sync(bad)).json()).toEqual({ error: `${join(bad, 'toolyard.lock.yaml')}: skills[0]: source must be a non-empty string` });
    const entry = 'name: x, source: x, resolvedReference: x, digest: x, contentDigest: x, clients: []';
    await writeFile(join(bad, 'toolyard.lock.yaml'), `version: 1\nskills: [{${entry}, marketplace: 3}]\n`);
    expect((await sync(bad)).json()).toEqual({ error: `${join(bad, 'toolyard.lock.yaml')}: skills[0]: marketplace must be a non-empty string` });
    await writeFile(join(bad, 'toolyard.lock.yaml'), 'version: [\n');
    expect((await sync(bad)).statusCode).toBe(400);
    await writeFile(join(bad, 'toolyard.lock.yaml'), 'version: 2\n');
    const newer = await sync(bad);
    expect([newer.statusCode, newer.json()]).toEqual([501, { error: `${join(bad, 'toolyard.lock.yaml')} has version 2; this toolyard reads version 1` }]);
    expect((await sync('relative/dir')).json()).toEqual({ error: 'project_root "relative/dir" must be an absolute path' });
    expect((await sync(join(work, 'empty-missing'))).statusCode).toBe(400);
  });
});
