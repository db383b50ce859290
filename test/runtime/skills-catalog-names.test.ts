import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writePlugin, writeSkill } from '../../src/runtime/artifacts/artifacts-testing.js';
import { commitTree, startGitDaemon, type GitDaemon } from '../../src/runtime/artifacts/git-testing.js';
import { startLocalRegistry } from '../helpers/docker-registry.js';
import { createTestRegistry, type TestRegistry } from '../helpers/registry.js';
import { testRuntime, type TestRuntime } from './fixtures.js';

const API = '/api/v1beta';
const skillMd = (name: string, version: string) => `---\nname: ${name}\ndescription: Reviews code.\nmetadata:\n  version: "${version}"\n---\n# ${name}\n`;
const PLUGIN_JSON = `${JSON.stringify({ name: 'lint-kit', version: '1.0.0', description: 'Lints.' })}\n`;
const local = await startLocalRegistry();

afterAll(async () => {
  await local.registry?.stop();
});

describe('installing skills and plugins by catalog name through the configured registry', { timeout: 30_000 }, () => {
  let catalog: TestRegistry;
  let runtime: TestRuntime;
  let daemon: GitDaemon;
  let work: string;
  let first: string;
  let second: string;
  const call = (method: 'GET' | 'POST' | 'PUT', url: string, payload?: object) => runtime.app.http.inject({ method, url: `${API}${url}`, ...(payload !== undefined && { payload }) });
  const repo = () => `git://${daemon.host}/catalog-repo`;
  const publish = async (kind: 'skill' | 'plugin', namespace: string, name: string, version: string, packages: object[]) => {
    expect(await catalog.send('POST', '/v1/entries', { [kind]: { namespace, name, version, description: `the ${name} ${kind}`, packages } })).toEqual({ status: 201, body: {} });
  };
  const gitPackage = (commit: string, subfolder: string) => ({ registryType: 'git', url: repo(), commit, subfolder });

  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), 'toolyard-catalog-names-'));
    const repoDir = join(work, 'repos', 'catalog-repo');
    first = await commitTree(repoDir, { 'skills/code-review/SKILL.md': skillMd('code-review', '1.0.0'), 'plugins/lint-kit/.claude-plugin/plugin.json': PLUGIN_JSON, 'plugins/lint-kit/commands/lint.md': '# Lint\n' });
    second = await commitTree(repoDir, { 'skills/code-review/SKILL.md': skillMd('code-review', '2.0.0'), 'skills/shared/SKILL.md': skillMd('shared', '1.0.0') });
    daemon = await startGitDaemon(join(work, 'repos'));
    catalog = await createTestRegistry({ config: { sources: [{ name: 'internal', managed: {} }], registries: [{ name: 'default', sources: ['internal'] }] } });
    await catalog.syncNow();
    await publish('skill', 'io.example', 'code-review', '1.0.0', [gitPackage(first, 'skills/code-review')]);
    await publish('skill', 'io.example', 'code-review', '2.0.0', [gitPackage(second, 'skills/code-review')]);
    await publish('plugin', 'io.example', 'lint-kit', '1.0.0', [gitPackage(first, 'plugins/lint-kit')]);
    await publish('skill', 'io.example', 'shared', '1.0.0', [gitPackage(second, 'skills/shared')]);
    await publish('skill', 'io.other', 'shared', '1.0.0', [gitPackage(second, 'skills/shared')]);
    await catalog.http.listen({ port: 0, host: '127.0.0.1' });
    runtime = await testRuntime({ supervisor: 'fake' });
    const apiUrl = `http://127.0.0.1:${String((catalog.http.server.address() as AddressInfo).port)}/registry/default`;
    expect((await call('PUT', '/registry/default', { api_url: apiUrl, allow_private_ip: true })).statusCode).toBe(200);
  });
  afterAll(async () => {
    await runtime.close();
    await catalog.dispose();
    await daemon.stop();
    await rm(work, { recursive: true, force: true });
  });

  it('installs the latest version of a skill by its bare name, from its git package at the published commit', async () => {
    const response = await call('POST', '/skills', { name: 'code-review', clients: ['claude-code'] });
    expect(response.statusCode, response.body).toBe(201);
    expect(response.json<{ skill: Record<string, unknown> }>().skill).toMatchObject({ reference: `${repo()}@${second}#skills/code-review`, digest: second, metadata: { version: '2.0.0' } });
  });

  it('installs the version asked for by namespace/name', async () => {
    const response = await call('POST', '/skills', { name: 'io.example/code-review', version: '1.0.0', clients: ['claude-code'] });
    expect(response.statusCode, response.body).toBe(201);
    expect(response.json<{ skill: Record<string, unknown> }>().skill).toMatchObject({ reference: `${repo()}@${first}#skills/code-review`, metadata: { version: '1.0.0' } });
  });

  it('installs a plugin by name', async () => {
    const response = await call('POST', '/plugins', { name: 'lint-kit', clients: ['claude-code'] });
    expect(response.statusCode, response.body).toBe(201);
    expect(response.json<{ plugin: Record<string, unknown> }>().plugin).toMatchObject({ reference: `${repo()}@${first}#plugins/lint-kit`, digest: first });
  });

  it('answers 404 for a name or version the registry lacks, and 409 (400 on content) for a bare name several namespaces share', async () => {
    expect((await call('POST', '/skills', { name: 'no-such-skill', clients: ['claude-code'] })).statusCode).toBe(404);
    const missingVersion = await call('POST', '/skills', { name: 'code-review', version: '9.9.9', clients: ['claude-code'] });
    expect(missingVersion.statusCode).toBe(404);
    expect(missingVersion.json<{ error: string }>().error).toBe('the registry has no version 9.9.9 of the skill io.example/code-review (its latest is 2.0.0)');
    const ambiguous = await call('POST', '/skills', { name: 'shared', clients: ['claude-code'] });
    expect(ambiguous.statusCode).toBe(409);
    expect(ambiguous.json<{ error: string }>().error).toBe('several skills are named shared in the registry (io.example/shared, io.other/shared); name one as namespace/name');
    expect((await call('GET', '/skills/content?ref=shared')).statusCode).toBe(400);
    const named = await call('GET', `/skills/content?ref=${encodeURIComponent('io.other/shared')}`);
    expect(named.statusCode, named.body).toBe(200);
    expect(named.json<{ name: string }>().name).toBe('shared');
  });

  if (local.registry !== undefined) {
    const host = local.registry.host;
    it('prefers a record\'s oci package over its git one, pulled at the record\'s version', async () => {
      const built = await writeSkill(join(work, 'oci'), 'oci-skill', { version: '1.0.0' });
      expect((await call('POST', '/skills/build', { path: built, tag: `${host}/skills/oci-skill:1.0.0` })).statusCode).toBe(200);
      expect((await call('POST', '/skills/push', { reference: `${host}/skills/oci-skill:1.0.0`, no_sign: true })).statusCode).toBe(204);
      await publish('skill', 'io.example', 'oci-skill', '1.0.0', [gitPackage(first, 'skills/code-review'), { registryType: 'oci', identifier: `${host}/skills/oci-skill` }]);
      // the runtime reads the catalog again only when asked or when its copy is an hour old
      expect((await call('POST', '/registry/default/refresh')).statusCode).toBe(200);
      const response = await call('POST', '/skills', { name: 'oci-skill', clients: ['claude-code'] });
      expect(response.statusCode, response.body).toBe(201);
      expect(response.json<{ skill: Record<string, unknown> }>().skill).toMatchObject({ reference: `${host}/skills/oci-skill:1.0.0`, digest: expect.stringMatching(/^sha256:/) as string });
      const plugin = await writePlugin(join(work, 'oci'), 'oci-plugin');
      expect((await call('POST', '/plugins/build', { path: plugin, tag: `${host}/plugins/oci-plugin:1.0.0` })).statusCode).toBe(200);
      expect((await call('POST', '/plugins/push', { reference: `${host}/plugins/oci-plugin:1.0.0`, no_sign: true })).statusCode).toBe(204);
      await publish('plugin', 'io.example', 'oci-plugin', '1.0.0', [{ registryType: 'oci', identifier: `${host}/plugins/oci-plugin:1.0.0` }]);
      expect((await call('POST', '/registry/default/refresh')).statusCode).toBe(200);
      const installed = await call('POST', '/plugins', { name: 'io.example/oci-plugin', clients: ['claude-code'] });
      expect(installed.statusCode, installed.body).toBe(201);
    });
  } else {
    it(`oci packages: no local OCI registry here (${local.reason})`, () => {
      expect(local.reason).toMatch(/docker-registry/);
    });
  }

  it('answers 502 when the registry cannot be reached for a version its cached catalog lacks', async () => {
    const apiUrl = `http://127.0.0.1:${String((catalog.http.server.address() as AddressInfo).port)}`;
    // a front that forwards to the registry until it is closed
    const front = createServer((req, res) => {
      fetch(`${apiUrl}${req.url ?? '/'}`).then(
        async (answer) => res.writeHead(answer.status, { 'content-type': 'application/json' }).end(await answer.text()),
        () => res.writeHead(502).end(),
      );
    });
    await new Promise<void>((resolve) => front.listen(0, '127.0.0.1', resolve));
    const other = await testRuntime({ supervisor: 'fake' });
    try {
      const frontUrl = `http://127.0.0.1:${String((front.address() as AddressInfo).port)}/registry/default`;
      expect((await other.app.http.inject({ method: 'PUT', url: `${API}/registry/default`, payload: { api_url: frontUrl, allow_private_ip: true } })).statusCode).toBe(200);
      front.closeAllConnections();
      await new Promise<void>((resolve) => front.close(() => resolve()));
      const response = await other.app.http.inject({ method: 'POST', url: `${API}/skills`, payload: { name: 'code-review', version: '1.0.0', clients: ['claude-code'] } });
      expect(response.statusCode, response.body).toBe(502);
      expect(response.json<{ error: string }>().error).toMatch(/^the registry could not be read to look up code-review/);
    } finally {
      await other.close();
    }
  });
});
