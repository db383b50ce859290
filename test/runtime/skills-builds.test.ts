import { cp, mkdtemp, readFile, readdir, rm, utimes } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writePlugin, writeSkill, writeTree } from '../../src/runtime/artifacts/artifacts-testing.js';
import { readTar } from '../../src/runtime/artifacts/tar.js';
import { testRuntime, type TestRuntime } from './fixtures.js';

const API = '/api/v1beta';

describe('the local API: validating and building skills and plugins', () => {
  let runtime: TestRuntime;
  let work: string;
  const call = (method: 'GET' | 'POST' | 'DELETE', url: string, payload?: object) => runtime.app.http.inject({ method, url: `${API}${url}`, ...(payload !== undefined && { payload }) });
  const oci = () => join(runtime.env.XDG_DATA_HOME ?? '', 'toolyard', 'oci');
  const blobs = async () => (await readdir(join(oci(), 'blobs', 'sha256'))).sort();

  beforeAll(async () => {
    runtime = await testRuntime({ supervisor: 'fake' });
    work = await mkdtemp(join(tmpdir(), 'toolyard-skill-src-'));
  });
  afterAll(async () => {
    await runtime.close();
    await rm(work, { recursive: true, force: true });
  });

  it('validates a skill folder and reports every broken rule', async () => {
    const good = await writeSkill(work, 'code-review', { version: '1.0.0' });
    expect((await call('POST', '/skills/validate', { path: good })).json()).toEqual({ valid: true, errors: [], warnings: [] });
    const bad = await writeSkill(work, 'wrong-folder', { description: 'x'.repeat(1025) });
    await writeTree(bad, { 'SKILL.md': `---\nname: other-name\ndescription: ${'x'.repeat(1025)}\n---\n` });
    expect((await call('POST', '/skills/validate', { path: bad })).json()).toEqual({
      valid: false,
      errors: ['name "other-name" must equal the folder name "wrong-folder"', 'description is 1025 characters; at most 1024 are allowed'],
      warnings: [],
    });
  });

  it('answers 400 for a relative, missing or non-folder path', async () => {
    for (const [path, message] of [
      ['skills/x', 'path "skills/x" must be an absolute path'],
      [join(work, 'nowhere'), `path ${join(work, 'nowhere')} does not exist`],
      [join(work, 'code-review', 'SKILL.md'), `path ${join(work, 'code-review', 'SKILL.md')} is not a folder`],
    ] as const) {
      const response = await call('POST', '/skills/validate', { path });
      expect(response.statusCode).toBe(400);
      expect(response.json()).toEqual({ error: message });
    }
  });

  it('builds a skill into the OCI layout: one manifest, its artifact type, one tar+gzip layer of the folder', async () => {
    await writeTree(join(work, 'code-review'), { '.git/HEAD': 'ref: refs/heads/main\n' });
    const response = await call('POST', '/skills/build', { path: join(work, 'code-review') });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ reference: 'code-review:1.0.0' });
    expect(JSON.parse(await readFile(join(oci(), 'oci-layout'), 'utf8'))).toEqual({ imageLayoutVersion: '1.0.0' });
    const index = JSON.parse(await readFile(join(oci(), 'index.json'), 'utf8')) as { manifests: { digest: string; artifactType: string; annotations: Record<string, string> }[] };
    expect(index.manifests).toHaveLength(1);
    const [entry] = index.manifests;
    expect(entry?.annotations['org.opencontainers.image.ref.name']).toBe('code-review:1.0.0');
    const blob = (digest: string) => readFile(join(oci(), 'blobs', 'sha256', digest.slice(7)));
    const manifest = JSON.parse((await blob(entry?.digest ?? '')).toString()) as { artifactType: string; layers: { mediaType: string; digest: string }[] };
    expect(manifest.artifactType).toBe('dev.toolyard.skills.v1');
    expect(manifest.layers.map((layer) => layer.mediaType)).toEqual(['application/vnd.oci.image.layer.v1.tar+gzip']);
    const members = readTar(gunzipSync(await blob(manifest.layers[0]?.digest ?? '')));
    expect(members.map((member) => [member.path, member.executable])).toEqual([
      ['SKILL.md', false],
      ['scripts', false],
      ['scripts/check.sh', false],
    ]);
    const listed = (await call('GET', '/skills/builds')).json<{ builds: unknown[] }>();
    expect(listed).toEqual({ builds: [{ tag: 'code-review:1.0.0', digest: entry?.digest, name: 'code-review', version: '1.0.0' }] });
    expect((await call('GET', '/plugins/builds')).json()).toEqual({ builds: [] });
  });

  it('builds the same bytes from a copy with other times', async () => {
    const before = (await call('GET', '/skills/builds')).json<{ builds: { digest: string }[] }>().builds[0]?.digest;
    const copy = join(work, 'copy', 'code-review');
    await cp(join(work, 'code-review'), copy, { recursive: true });
    await utimes(join(copy, 'SKILL.md'), new Date('2001-01-01'), new Date('2001-01-01'));
    expect((await call('POST', '/skills/build', { path: copy, tag: '127.0.0.1:5000/skills/code-review:1.0.0' })).json()).toEqual({
      reference: '127.0.0.1:5000/skills/code-review:1.0.0',
    });
    const builds = (await call('GET', '/skills/builds')).json<{ builds: { tag: string; digest: string }[] }>().builds;
    expect(builds.map((build) => [build.tag, build.digest])).toEqual([
      ['127.0.0.1:5000/skills/code-review:1.0.0', before],
      ['code-review:1.0.0', before],
    ]);
  });

  it('refuses to build invalid content or under a bad tag', async () => {
    const invalid = await call('POST', '/skills/build', { path: join(work, 'wrong-folder') });
    expect(invalid.statusCode).toBe(400);
    expect(invalid.json<{ error: string }>().error).toContain(`the skill at ${join(work, 'wrong-folder')} is not valid: name "other-name" must equal the folder name`);
    const tag = await call('POST', '/skills/build', { path: join(work, 'code-review'), tag: 'Not A Tag' });
    expect(tag.statusCode).toBe(400);
    expect(tag.json()).toEqual({ error: 'tag "Not A Tag" is not an OCI reference of the form [host/]repository[:tag]' });
  });

  it('builds a plugin with latest as the default tag when it has no version', async () => {
    const path = await writePlugin(work, 'review-kit');
    expect((await call('POST', '/plugins/validate', { path })).json()).toEqual({ valid: true, errors: [], warnings: [] });
    expect((await call('POST', '/plugins/build', { path, tag: 'review-kit' })).json()).toEqual({ reference: 'review-kit:latest' });
    expect((await call('GET', '/plugins/builds')).json<{ builds: { tag: string; version: string }[] }>().builds).toEqual([
      expect.objectContaining({ tag: 'review-kit:latest', name: 'review-kit', version: '1.0.0' }),
    ]);
  });

  it('deletes a build and the blobs no other build needs', async () => {
    const shared = await blobs();
    expect((await call('DELETE', `/skills/builds/${encodeURIComponent('127.0.0.1:5000/skills/code-review:1.0.0')}`)).statusCode).toBe(204);
    expect(await blobs()).toEqual(shared);
    expect((await call('DELETE', '/skills/builds/code-review:1.0.0')).statusCode).toBe(204);
    expect((await blobs()).length).toBeLessThan(shared.length);
    const missing = await call('DELETE', '/skills/builds/code-review:1.0.0');
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toEqual({ error: 'no skill build is tagged code-review:1.0.0' });
    expect((await call('DELETE', '/skills/builds/review-kit:latest')).statusCode).toBe(404);
  });
});
