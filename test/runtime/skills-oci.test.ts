import { copyFile, mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writePlugin, writeSkill, writeTree } from '../../src/runtime/artifacts/artifacts-testing.js';
import { contentDigest } from '../../src/runtime/artifacts/digest.js';
import { startLocalRegistry, type LocalRegistry } from '../helpers/docker-registry.js';
import { runCli } from '../helpers/cli.js';
import { runtimeEnv, testRuntime, type TestRuntime } from './fixtures.js';

const API = '/api/v1beta';
const EMPTY = { already_current: [], drifted: [], failed: [], installed: [], missing: [], never_managed: [], pruned: [], removed_from_lock: [] };
const local = await startLocalRegistry();

afterAll(async () => {
  await local.registry?.stop();
});

const caller = (runtime: TestRuntime) => (method: 'GET' | 'POST', url: string, payload?: object) =>
  runtime.app.http.inject({ method, url: `${API}${url}`, ...(payload !== undefined && { payload }) });
type Call = ReturnType<typeof caller>;

function registryTests(registry: LocalRegistry): void {
  describe('skills and plugins pushed to and pulled from a real OCI registry', { timeout: 30_000 }, () => {
    const host = registry.host;
    const reference = `${host}/skills/code-review:1.0.0`;
    let publisher: TestRuntime;
    let consumer: TestRuntime;
    let work: string;
    let publish: Call;
    let consume: Call;
    let built: string;
    const lockOf = async (projectRoot: string) => parse(await readFile(join(projectRoot, 'toolyard.lock.yaml'), 'utf8')) as { skills: Record<string, unknown>[] };
    const project = async (name: string) => {
      const dir = join(work, name);
      await mkdir(dir);
      return dir;
    };

    beforeAll(async () => {
      publisher = await testRuntime({ supervisor: 'fake' });
      consumer = await testRuntime({ supervisor: 'fake' });
      publish = caller(publisher);
      consume = caller(consumer);
      work = await mkdtemp(join(tmpdir(), 'toolyard-skill-oci-'));
      const path = await writeSkill(join(work, 'src'), 'code-review', { version: '1.0.0' });
      expect((await publish('POST', '/skills/build', { path, tag: reference })).json()).toEqual({ reference });
      built = (await publish('GET', '/skills/builds')).json<{ builds: { digest: string }[] }>().builds[0]?.digest ?? '';
    });
    afterAll(async () => {
      await publisher.close();
      await consumer.close();
      await rm(work, { recursive: true, force: true });
    });

    it('pushes a build under its tag, which the registry then serves as an OCI manifest of the skill artifact type', async () => {
      const pushed = await publish('POST', '/skills/push', { reference, no_sign: true });
      expect(pushed.statusCode, pushed.body).toBe(204);
      const manifest = await fetch(`http://${host}/v2/skills/code-review/manifests/1.0.0`, { headers: { accept: 'application/vnd.oci.image.manifest.v1+json' } });
      expect(manifest.headers.get('docker-content-digest')).toBe(built);
      expect(await manifest.json()).toMatchObject({ artifactType: 'dev.toolyard.skills.v1', layers: [{ mediaType: 'application/vnd.oci.image.layer.v1.tar+gzip' }] });
    });

    it('refuses a push without exactly one signing choice (400), keyless (501), of an unknown build (404) or of a tag naming no registry (400)', async () => {
      const cases: [object, number, string][] = [
        [{ reference }, 400, 'give exactly one of key, identity_token or no_sign: true'],
        [{ reference, no_sign: true, identity_token: 'token' }, 400, 'give exactly one of key, identity_token or no_sign: true'],
        [{ reference, identity_token: 'token' }, 501, 'keyless signing with identity_token needs a Fulcio and a Rekor: set sigstore.fulcioUrl (TOOLYARD_RUNTIME_SIGSTORE_FULCIO_URL) and sigstore.rekorUrl (TOOLYARD_RUNTIME_SIGSTORE_REKOR_URL); or sign with key, or push with no_sign: true'],
        [{ reference: `${host}/skills/code-review:9.9.9`, no_sign: true }, 404, `no local skill build is tagged ${host}/skills/code-review:9.9.9; build it with that tag first`],
      ];
      await publish('POST', '/skills/build', { path: join(work, 'src', 'code-review') });
      cases.push([{ reference: 'code-review:1.0.0', no_sign: true }, 400, 'build tag code-review:1.0.0 names no registry; build with a tag such as registry.example.com/skills/code-review:1.0.0']);
      for (const [body, status, error] of cases) {
        const response = await publish('POST', '/skills/push', body);
        expect({ status: response.statusCode, body: response.json<unknown>() }).toEqual({ status, body: { error } });
      }
    });

    it('installs by registry reference on another machine: the same files, pinned at the manifest digest in the record and the lock file', async () => {
      const root = await project('first');
      expect((await consume('GET', `/skills/content?ref=${encodeURIComponent(reference)}`)).json()).toMatchObject({ name: 'code-review', version: '1.0.0' });
      const installed = await consume('POST', '/skills', { name: reference, scope: 'project', project_root: root, clients: ['claude-code'] });
      expect(installed.statusCode, installed.body).toBe(201);
      expect(installed.json()).toMatchObject({ skill: { metadata: { name: 'code-review' }, reference, digest: built, tag: '1.0.0' }, unsigned: true, provenance: null });
      expect(await readFile(join(root, '.claude/skills/code-review/scripts/check.sh'), 'utf8')).toBe('#!/bin/sh\necho ok\n');
      expect(await contentDigest(join(root, '.claude/skills/code-review'))).toBe(await contentDigest(join(work, 'src', 'code-review')));
      expect((await lockOf(root)).skills).toEqual([expect.objectContaining({ name: 'code-review', source: reference, resolvedReference: reference, digest: built, clients: ['claude-code'] })]);
    });

    it('answers 404 for a tag the registry does not have, and 400 when the repository is not named after the artifact', async () => {
      const unknown = await consume('POST', '/skills', { name: `${host}/skills/code-review:2.0.0`, clients: ['claude-code'] });
      expect(unknown.statusCode).toBe(404);
      expect(unknown.json<{ error: string }>().error).toMatch(/no such repository, tag or blob/);
      const misnamed = `${host}/skills/other-name:1.0.0`;
      await publish('POST', '/skills/build', { path: join(work, 'src', 'code-review'), tag: misnamed });
      expect((await publish('POST', '/skills/push', { reference: misnamed, no_sign: true })).statusCode).toBe(204);
      const refused = await consume('POST', '/skills', { name: misnamed, clients: ['claude-code'] });
      expect({ status: refused.statusCode, body: refused.json<unknown>() }).toEqual({
        status: 400,
        body: { error: `${misnamed} holds the skill code-review; its repository must end in /code-review, not /other-name` },
      });
    });

    it('sync restores a copied lock file from the pinned digest even after the tag moved', async () => {
      const path = await writeTree(join(work, 'next', 'code-review'), { 'SKILL.md': '---\nname: code-review\ndescription: Reviews code, again.\n---\n# v2\n' });
      await publish('POST', '/skills/build', { path, tag: reference });
      expect((await publish('POST', '/skills/push', { reference, no_sign: true })).statusCode).toBe(204);
      const root = await project('second');
      await copyFile(join(work, 'first', 'toolyard.lock.yaml'), join(root, 'toolyard.lock.yaml'));
      const synced = await consume('POST', '/skills/sync', { project_root: root });
      expect(synced.json()).toEqual({ ...EMPTY, missing: ['code-review'], installed: ['code-review'] });
      expect(await contentDigest(join(root, '.claude/skills/code-review'))).toBe(await contentDigest(join(work, 'src', 'code-review')));
      expect((await consume('GET', `/skills/code-review?scope=project&project_root=${encodeURIComponent(root)}`)).json()).toMatchObject({ installed_skill: { reference, digest: built } });
      const upgrade = await consume('POST', '/skills/upgrade', { project_root: root, preview: true });
      expect(upgrade.json()).toMatchObject({ outcomes: [{ name: 'code-review', status: 'upgrade-available', old_digest: built, new_digest: expect.not.stringMatching(built) as string }] });
    });

    it('toolyard skill push sends a build to its registry, only when told it goes unsigned', async () => {
      const cliReference = `${host}/skills/lint-rules:2.0.0`;
      const { dir, env } = await runtimeEnv();
      const cli = (...args: string[]) => runCli(args, env);
      const path = await writeSkill(join(work, 'src'), 'lint-rules', { version: '2.0.0' });
      expect(await cli('skill', 'build', path, '--tag', cliReference)).toEqual({ code: 0, output: `${cliReference}\n` });
      const unsigned = await cli('skill', 'push', cliReference);
      expect(unsigned.code).not.toBe(0);
      expect(unsigned.output).toContain('give --key <pem> to sign the push, or --no-sign to push unsigned');
      expect(await cli('skill', 'push', cliReference, '--no-sign')).toEqual({ code: 0, output: `pushed ${cliReference}\n` });
      expect(await (await fetch(`http://${host}/v2/skills/lint-rules/tags/list`)).json()).toEqual({ name: 'skills/lint-rules', tags: ['2.0.0'] });
      await rm(dir, { recursive: true, force: true });
    });

    it('pushes a plugin and installs it by reference', async () => {
      const plugin = `${host}/plugins/review-kit:1.0.0`;
      await publish('POST', '/plugins/build', { path: await writePlugin(join(work, 'src'), 'review-kit'), tag: plugin });
      expect((await publish('POST', '/plugins/push', { reference: plugin, no_sign: true })).statusCode).toBe(204);
      const installed = await consume('POST', '/plugins', { name: plugin, clients: ['claude-code'] });
      expect(installed.statusCode, installed.body).toBe(201);
      expect(await readFile(join(consumer.home, '.claude/plugins/toolyard/review-kit/commands/review.md'), 'utf8')).toBe('# Review\n');
    });

    it('with the registry down, sync leaves current entries current and reports the others failed with registry-unreachable', async () => {
      await registry.stop();
      expect((await consume('POST', '/skills/sync', { project_root: join(work, 'first') })).json()).toEqual({ ...EMPTY, already_current: ['code-review'] });
      const root = await project('third');
      await copyFile(join(work, 'first', 'toolyard.lock.yaml'), join(root, 'toolyard.lock.yaml'));
      const synced = await consume('POST', '/skills/sync', { project_root: root });
      expect(synced.statusCode).toBe(200);
      expect(synced.json()).toEqual({ ...EMPTY, missing: ['code-review'], failed: [{ name: 'code-review', reason: 'registry-unreachable', error: expect.stringMatching(/could not be reached/) as string }] });
      const install = await consume('POST', '/skills', { name: reference, clients: ['claude-code'] });
      expect(install.statusCode).toBe(502);
    });
  });
}

if (local.registry === undefined) {
  const reason = local.reason;
  it(`real OCI registry: not available here (${reason})`, () => {
    expect(reason).toMatch(/docker-registry/);
  });
} else {
  registryTests(local.registry);
}
