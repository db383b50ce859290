import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeSkill } from '../../src/runtime/artifacts/artifacts-testing.js';
import { commitTree, git, startGitDaemon, type GitDaemon } from '../../src/runtime/artifacts/git-testing.js';
import { testRuntime, type TestRuntime } from './fixtures.js';

const API = '/api/v1beta';
const SKILL_MD = '---\nname: code-review\ndescription: Reviews code.\nmetadata:\n  version: "1.0.0"\n  author: Ada\n  tags: review, quality\n---\n# Code review\n';

/** Clarification point 5, written out: user folders relative to home (`<cfg>` = the XDG config home), project folders. */
const USER_FOLDERS = ['.claude/skills', '.cursor/skills', '.copilot/skills', '.cline/skills', '.codeium/windsurf/skills', '<cfg>/goose/skills', '.gemini/skills', '.agents/skills', '<cfg>/opencode/skills', '.kiro/skills', '<cfg>/amp/skills'];
const PROJECT_FOLDERS = ['.claude/skills', '.cursor/skills', '.github/skills', '.cline/skills', '.windsurf/skills', '.goose/skills', '.gemini/skills', '.agents/skills', '.opencode/skills', '.kiro/skills'];
const SKILL_CLIENTS = ['claude-code', 'cursor', 'vscode', 'vscode-insider', 'cline', 'windsurf', 'goose', 'zed', 'gemini-cli', 'codex', 'opencode', 'kiro', 'amp-cli', 'copilot-cli'];

describe('the local API: installing skills from git and from local builds', () => {
  let runtime: TestRuntime;
  let work: string;
  let daemon: GitDaemon;
  let commit: string;
  let project: string;
  const call = (method: 'GET' | 'POST' | 'DELETE', url: string, payload?: object) => runtime.app.http.inject({ method, url: `${API}${url}`, ...(payload !== undefined && { payload }) });
  const cfg = () => runtime.env.XDG_CONFIG_HOME ?? '';
  const userFolder = (folder: string) => (folder.startsWith('<cfg>/') ? join(cfg(), folder.slice(6)) : join(runtime.home, folder));
  const gitRef = (suffix = '') => `git://${daemon.host}/skills-repo${suffix}`;

  beforeAll(async () => {
    runtime = await testRuntime({ supervisor: 'fake' });
    work = await mkdtemp(join(tmpdir(), 'toolyard-skill-git-'));
    commit = await commitTree(join(work, 'repos', 'skills-repo'), { 'skills/code-review/SKILL.md': SKILL_MD, 'skills/code-review/scripts/run.sh': 'echo ok\n', 'README.md': '# skills\n' });
    git(join(work, 'repos', 'skills-repo'), 'tag', 'v1.0.0');
    await commitTree(join(work, 'repos', 'skills-repo'), { 'skills/code-review/notes.md': 'later\n' });
    daemon = await startGitDaemon(join(work, 'repos'));
    project = join(work, 'project');
    await mkdir(project);
  });
  afterAll(async () => {
    await daemon.stop();
    await runtime.close();
    await rm(work, { recursive: true, force: true });
  });

  it('says in discovery which clients take skills and which take plugins', async () => {
    const { clients } = (await call('GET', '/discovery/clients')).json<{ clients: { client_type: string; supports_skills: boolean; supports_plugins: boolean }[] }>();
    expect(clients.filter((client) => client.supports_skills).map((client) => client.client_type).sort()).toEqual([...SKILL_CLIENTS].sort());
    expect(clients.filter((client) => client.supports_plugins).map((client) => client.client_type)).toEqual(['claude-code', 'codex']);
  });

  it('installs for the clients found on this machine when none are named, and 400 when there are none', async () => {
    const none = await call('POST', '/skills', { name: gitRef('#skills/code-review') });
    expect(none.statusCode).toBe(400);
    expect(none.json<{ error: string }>().error).toMatch(/^no client that takes skills is installed here/);
    await mkdir(join(runtime.home, '.gemini'), { recursive: true });
    const response = await call('POST', '/skills', { name: gitRef('#skills/code-review') });
    expect(response.json<{ skill: { clients: string[] } }>().skill.clients).toEqual(['gemini-cli']);
  });

  it('installs a skill from a git folder at a commit into every client folder of user scope', async () => {
    const response = await call('POST', '/skills', { name: gitRef(`@${commit}#skills/code-review`), clients: ['all'] });
    expect(response.statusCode).toBe(201);
    expect(response.headers.location).toBe('/api/v1beta/skills/code-review?scope=user');
    const body = response.json<{ skill: Record<string, unknown>; provenance: unknown; unsigned: boolean }>();
    expect(body).toEqual({
      skill: {
        clients: SKILL_CLIENTS.filter((client) => client !== 'continue'),
        dependencies: [],
        digest: commit,
        installed_at: expect.any(String) as string,
        managed: false,
        metadata: { author: 'Ada', description: 'Reviews code.', name: 'code-review', tags: ['review', 'quality'], version: '1.0.0' },
        project_root: '',
        reference: gitRef(`@${commit}#skills/code-review`),
        scope: 'user',
        status: 'installed',
        tag: '',
      },
      provenance: null,
      unsigned: true,
    });
    for (const folder of USER_FOLDERS) {
      expect(await readFile(join(userFolder(folder), 'code-review', 'SKILL.md'), 'utf8')).toBe(SKILL_MD);
      // the first commit: the later notes.md is not there
      expect((await readdir(join(userFolder(folder), 'code-review'))).sort()).toEqual(['SKILL.md', 'scripts']);
    }
  });

  it('installs from the default branch, pinning its head commit', async () => {
    const response = await call('POST', '/skills', { name: gitRef('#skills/code-review'), clients: ['kiro'], force: true });
    expect(response.statusCode).toBe(201);
    const head = response.json<{ skill: { digest: string; reference: string; clients: string[] } }>().skill;
    expect(head.digest).toMatch(/^[0-9a-f]{40}$/);
    expect(head.digest).not.toBe(commit);
    expect(head.reference).toBe(gitRef(`@${head.digest}#skills/code-review`));
    expect(head.clients).toEqual(['kiro']);
    expect(await readFile(join(runtime.home, '.kiro/skills/code-review/notes.md'), 'utf8')).toBe('later\n');
    // clients the new install leaves out lose the folder, so the record is the whole truth
    await expect(readdir(join(runtime.home, '.claude/skills/code-review'))).rejects.toThrow('ENOENT');
  });

  it('installs from a tag, pinning the commit it names', async () => {
    const response = await call('POST', '/skills', { name: gitRef('@v1.0.0#skills/code-review'), clients: ['kiro'] });
    expect(response.json<{ skill: { digest: string; reference: string } }>().skill).toMatchObject({ digest: commit, reference: gitRef(`@${commit}#skills/code-review`) });
    await expect(readFile(join(runtime.home, '.kiro/skills/code-review/notes.md'))).rejects.toThrow('ENOENT');
  });

  it('builds and installs a local build into project folders, and shows its details', async () => {
    const source = await writeSkill(work, 'lint-rules', { version: '2.0.0' });
    expect((await call('POST', '/skills/build', { path: source })).json()).toEqual({ reference: 'lint-rules:2.0.0' });
    const digest = (await call('GET', '/skills/builds')).json<{ builds: { digest: string }[] }>().builds[0]?.digest;
    const response = await call('POST', '/skills', { name: 'lint-rules:2.0.0', scope: 'project', project_root: project, clients: ['all'] });
    expect(response.statusCode).toBe(201);
    expect(response.headers.location).toBe(`/api/v1beta/skills/lint-rules?scope=project&project_root=${encodeURIComponent(project)}`);
    expect(response.json<{ skill: object }>().skill).toMatchObject({ digest, reference: 'lint-rules:2.0.0', tag: '2.0.0', scope: 'project', project_root: project });
    for (const folder of PROJECT_FOLDERS) expect(await readFile(join(project, folder, 'lint-rules', 'scripts', 'check.sh'), 'utf8')).toBe('#!/bin/sh\necho ok\n');
    const details = await call('GET', `/skills/lint-rules?scope=project&project_root=${encodeURIComponent(project)}`);
    expect(details.json()).toMatchObject({ installed_skill: { digest }, metadata: { name: 'lint-rules', version: '2.0.0' }, provenance: null, unsigned: true });
    expect((await call('GET', '/skills/lint-rules')).statusCode).toBe(404);
    // a name without a tag takes the version asked for
    const byVersion = await call('POST', '/skills', { name: 'lint-rules', version: '2.0.0', scope: 'project', project_root: project, clients: ['all'] });
    expect(byVersion.json<{ skill: object }>().skill).toMatchObject({ digest, reference: 'lint-rules:2.0.0' });
  });

  it('lists with the scope, client, project and group filters', async () => {
    const names = async (query: string) => (await call('GET', `/skills${query}`)).json<{ skills: { metadata: { name: string } }[] }>().skills.map((skill) => skill.metadata.name);
    expect(await names('')).toEqual(['code-review', 'lint-rules']);
    expect(await names('?scope=user')).toEqual(['code-review']);
    expect(await names(`?project_root=${encodeURIComponent(project)}`)).toEqual(['lint-rules']);
    expect(await names('?client=kiro')).toEqual(['code-review', 'lint-rules']);
    expect(await names('?client=claude-code')).toEqual(['lint-rules']);
    expect(await names('?group=default')).toEqual([]);
  });

  it('previews content without writing anything', async () => {
    const response = await call('GET', `/skills/content?ref=${encodeURIComponent(gitRef(`@${commit}#skills/code-review`))}`);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ body: SKILL_MD, description: 'Reviews code.', license: '', name: 'code-review', version: '1.0.0', files: [{ path: 'SKILL.md', size: SKILL_MD.length }, { path: 'scripts/run.sh', size: 8 }] });
  });

  it('refuses a folder it did not install unless forced, and lists the skill in its group', async () => {
    const foreign = join(runtime.home, '.cursor/skills/team-notes');
    await mkdir(foreign, { recursive: true });
    await writeFile(join(foreign, 'mine.txt'), 'hand-made');
    const source = await writeSkill(work, 'team-notes');
    await call('POST', '/skills/build', { path: source });
    const conflict = await call('POST', '/skills', { name: 'team-notes', clients: ['cursor'] });
    expect(conflict.statusCode).toBe(409);
    expect(conflict.json()).toEqual({ error: `${foreign} already exists and was not installed by toolyard; pass force to replace it` });
    expect(await readFile(join(foreign, 'mine.txt'), 'utf8')).toBe('hand-made');
    expect((await call('POST', '/groups', { name: 'writers' })).statusCode).toBe(201);
    expect((await call('POST', '/skills', { name: 'team-notes', clients: ['cursor'], force: true, group: 'writers' })).statusCode).toBe(201);
    expect(await readdir(foreign)).toEqual(['SKILL.md', 'scripts']);
    expect((await call('GET', '/groups/writers')).json()).toMatchObject({ skills: ['team-notes'] });
    expect((await call('GET', '/skills?group=writers')).json<{ skills: unknown[] }>().skills).toHaveLength(1);
    // installed again into another group: it moves
    expect((await call('POST', '/groups', { name: 'reviewers' })).statusCode).toBe(201);
    expect((await call('POST', '/skills', { name: 'team-notes', clients: ['cursor'], group: 'reviewers' })).statusCode).toBe(201);
    expect((await call('GET', '/groups/writers')).json()).toMatchObject({ skills: [] });
    expect((await call('GET', '/groups/reviewers')).json()).toMatchObject({ skills: ['team-notes'] });
  });

  it('uninstalls from every recorded folder and from its group', async () => {
    expect((await call('DELETE', '/skills/team-notes')).statusCode).toBe(204);
    await expect(readdir(join(runtime.home, '.cursor/skills/team-notes'))).rejects.toThrow('ENOENT');
    expect((await call('GET', '/groups/reviewers')).json()).toMatchObject({ skills: [] });
    expect((await call('DELETE', `/skills/lint-rules?scope=project&project_root=${encodeURIComponent(project)}`)).statusCode).toBe(204);
    for (const folder of PROJECT_FOLDERS) await expect(readdir(join(project, folder, 'lint-rules'))).rejects.toThrow('ENOENT');
    const again = await call('DELETE', '/skills/team-notes');
    expect(again.statusCode).toBe(404);
    expect(again.json()).toEqual({ error: 'skill team-notes is not installed in user scope' });
  });

  it('answers 400 for bad scopes, clients and references, and 404 for what does not exist', async () => {
    const cases: [object, number, string][] = [
      [{ name: 'x', scope: 'project' }, 400, 'project_root is required with scope=project'],
      [{ name: 'x', scope: 'project', project_root: 'rel/dir' }, 400, 'project_root "rel/dir" must be an absolute path'],
      [{ name: 'x', scope: 'project', project_root: join(work, 'none') }, 400, `project_root ${join(work, 'none')} is not an existing folder`],
      [{ name: 'x', project_root: project }, 400, 'project_root is only for scope=project; leave it out for user scope'],
      [{ name: 'x', clients: ['continue'] }, 400, `clients continue cannot take skills; choose among ${SKILL_CLIENTS.join(', ')} or ["all"]`],
      [{ name: 'x', clients: ['cursor'], group: 'nope' }, 404, 'group nope not found'],
      [{ name: 'no-such-build', clients: ['cursor'] }, 404, 'no local skill build is tagged no-such-build, and it is not a git:// reference'],
      [{ name: 'git://127.0.0.1', clients: ['cursor'] }, 400, 'git reference git://127.0.0.1 must be git://host/path[@ref][#subdir]'],
      [{ name: 'git://10.1.2.3/x/y', clients: ['cursor'] }, 400, 'git host 10.1.2.3 is a private address (10.1.2.3); only loopback and public hosts are allowed'],
      [{ name: gitRef('@no-such-branch'), clients: ['cursor'] }, 404, `fetching ${gitRef('@no-such-branch')}: the repository, ref or folder does not exist`],
      [{ name: gitRef('#skills/absent'), clients: ['cursor'] }, 404, `fetching ${gitRef()} (folder skills/absent): the repository, ref or folder does not exist`],
      [{ name: `git://${daemon.host}/no-repo`, clients: ['cursor'] }, 404, `fetching git://${daemon.host}/no-repo: the repository, ref or folder does not exist`],
      [{ name: gitRef(), clients: ['cursor'] }, 400, `${gitRef()} is not a usable skill: SKILL.md is missing`],
      [{ name: gitRef('#skills/code-review'), clients: ['cursor'], version: '9.9.9' }, 400, `${gitRef('#skills/code-review')} is skill code-review version 1.0.0, not 9.9.9`],
    ];
    for (const [body, status, message] of cases) {
      const response = await call('POST', '/skills', body);
      expect([response.statusCode, response.json()]).toEqual([status, { error: message }]);
    }
  });

});
