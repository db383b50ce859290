import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeSkill } from '../../src/runtime/artifacts/artifacts-testing.js';
import { commitTree, startGitDaemon, type GitDaemon } from '../../src/runtime/artifacts/git-testing.js';
import { testRuntime, type TestRuntime } from './fixtures.js';

const API = '/api/v1beta';
const skillMd = (body: string) => `---\nname: code-review\ndescription: Reviews code.\n---\n${body}\n`;

interface Outcome {
  name: string;
  status: string;
  old_digest: string;
  new_digest: string;
  reason: string;
  trust_anchor_changed: boolean;
  new_signer_identity: string;
}

describe('the local API: upgrading the skills of a project', () => {
  let runtime: TestRuntime;
  let work: string;
  let daemon: GitDaemon;
  let first: string;
  let project: string;
  const repo = () => join(work, 'repos', 'team');
  const call = (method: 'GET' | 'POST', url: string, payload?: object) => runtime.app.http.inject({ method, url: `${API}${url}`, ...(payload !== undefined && { payload }) });
  const upgrade = async (extra: object = {}) => {
    const response = await call('POST', '/skills/upgrade', { project_root: project, ...extra });
    return response.json<{ outcomes: Outcome[] }>().outcomes;
  };
  const lockPath = () => join(project, 'toolyard.lock.yaml');
  const lock = async () => parse(await readFile(lockPath(), 'utf8')) as { skills: Record<string, unknown>[] };

  beforeAll(async () => {
    runtime = await testRuntime({ supervisor: 'fake' });
    work = await mkdtemp(join(tmpdir(), 'toolyard-skill-upgrade-'));
    first = await commitTree(repo(), { 'code-review/SKILL.md': skillMd('v1'), 'pinned-notes/SKILL.md': '---\nname: pinned-notes\ndescription: Notes.\n---\n' });
    daemon = await startGitDaemon(join(work, 'repos'));
    project = join(work, 'project');
    await mkdir(project);
    await call('POST', '/skills', { name: `git://${daemon.host}/team#code-review`, scope: 'project', project_root: project, clients: ['claude-code'] });
    await call('POST', '/skills', { name: `git://${daemon.host}/team@${first}#pinned-notes`, scope: 'project', project_root: project, clients: ['claude-code'] });
  });
  afterAll(async () => {
    await daemon.stop();
    await runtime.close();
    await rm(work, { recursive: true, force: true });
  });

  it('finds everything up to date, and a source pinned to a commit not upgradable', async () => {
    expect((await upgrade({ preview: true })).map((outcome) => [outcome.name, outcome.status, outcome.old_digest, outcome.new_digest])).toEqual([
      ['code-review', 'up-to-date', first, first],
      ['pinned-notes', 'not-upgradable', first, ''],
    ]);
  });

  it('previews an upgrade without installing it, then installs it and moves the lock entry', async () => {
    const second = await commitTree(repo(), { 'code-review/SKILL.md': skillMd('v2') });
    const [preview] = await upgrade({ names: ['code-review'], preview: true });
    expect(preview).toMatchObject({ name: 'code-review', status: 'upgrade-available', old_digest: first, new_digest: second, trust_anchor_changed: false });
    expect(await readFile(join(project, '.claude/skills/code-review/SKILL.md'), 'utf8')).toBe(skillMd('v1'));
    expect((await upgrade({ names: ['code-review'], fail_on_changes: true }))[0]?.status).toBe('upgrade-available');
    const [done] = await upgrade({ names: ['code-review'] });
    expect(done).toMatchObject({ status: 'upgraded', old_digest: first, new_digest: second, new_resolved_reference: `git://${daemon.host}/team@${second}#code-review` });
    expect(await readFile(join(project, '.claude/skills/code-review/SKILL.md'), 'utf8')).toBe(skillMd('v2'));
    expect((await lock()).skills[0]).toMatchObject({ name: 'code-review', source: `git://${daemon.host}/team#code-review`, digest: second });
  });

  it('follows a local build tag that moved', async () => {
    const source = await writeSkill(work, 'lint-rules', { version: '1.0.0' });
    await call('POST', '/skills/build', { path: source, tag: 'lint-rules:stable' });
    await call('POST', '/skills', { name: 'lint-rules:stable', scope: 'project', project_root: project, clients: ['cursor'] });
    await writeSkill(work, 'lint-rules', { version: '1.1.0' });
    await call('POST', '/skills/build', { path: source, tag: 'lint-rules:stable' });
    expect((await upgrade({ names: ['lint-rules'] }))[0]).toMatchObject({ status: 'upgraded', new_resolved_reference: 'lint-rules:stable' });
    expect(await readFile(join(project, '.cursor/skills/lint-rules/SKILL.md'), 'utf8')).toContain('version: "1.1.0"');
  });

  it('blocks unsigned content over an entry that records a signer, on upgrade and on install', async () => {
    const signed = await lock();
    const entry = signed.skills.find((item) => item.name === 'code-review') ?? {};
    delete entry.unsigned;
    entry.reviewedBy = 'security';
    entry.provenance = { signerIdentity: 'https://github.com/team/skills/.github/workflows/release.yml@refs/heads/main', certIssuer: 'https://token.actions.githubusercontent.com' };
    await writeFile(lockPath(), stringify(signed));
    await commitTree(repo(), { 'code-review/SKILL.md': skillMd('v3') });
    expect((await upgrade({ names: ['code-review'] }))[0]).toMatchObject({ status: 'signer-change-blocked', trust_anchor_changed: true, new_signer_identity: '' });
    const install = await call('POST', '/skills', { name: `git://${daemon.host}/team#code-review`, scope: 'project', project_root: project, clients: ['claude-code'] });
    expect(install.statusCode).toBe(403);
    expect(install.json<{ error: string }>().error).toMatch(/^code-review is unsigned, but the lock file records it as signed by https:\/\/github.com\/team/);
    expect((await upgrade({ names: ['code-review'], allow_signer_change: true }))[0]).toMatchObject({ status: 'upgraded', trust_anchor_changed: true });
    const now = (await lock()).skills.find((item) => item.name === 'code-review');
    expect(now?.unsigned).toBe(true);
    expect(now?.provenance).toBeUndefined();
    expect(now?.reviewedBy).toBe('security');
  });

  it('reports an unreachable source as failed and keeps the files', async () => {
    await daemon.stop();
    await commitTree(repo(), { 'code-review/SKILL.md': skillMd('v4') });
    const [failed] = await upgrade({ names: ['code-review'] });
    expect(failed).toMatchObject({ status: 'failed', reason: 'registry-unreachable' });
    expect(await readFile(join(project, '.claude/skills/code-review/SKILL.md'), 'utf8')).toBe(skillMd('v3'));
    daemon = await startGitDaemon(join(work, 'repos'), daemon.port);
  });

  it('answers 404 for names not in the lock file and 501 for a newer lock format', async () => {
    const unknown = await call('POST', '/skills/upgrade', { project_root: project, names: ['nope'] });
    expect([unknown.statusCode, unknown.json()]).toEqual([404, { error: `nope is not in ${lockPath()}` }]);
    await writeFile(lockPath(), 'version: 3\n');
    expect((await call('POST', '/skills/upgrade', { project_root: project })).statusCode).toBe(501);
  });
});
