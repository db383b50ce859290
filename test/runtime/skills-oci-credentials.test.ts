import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeSkill } from '../../src/runtime/artifacts/artifacts-testing.js';
import { startLocalRegistry, type LocalRegistry } from '../helpers/docker-registry.js';
import { testRuntime, type TestRuntime } from './fixtures.js';

const API = '/api/v1beta';
const PASSWORD = 'correct:horse-battery';
const local = await startLocalRegistry({ users: { alice: PASSWORD } });

afterAll(async () => {
  await local.registry?.stop();
});

const auth = (user: string, password: string): string => Buffer.from(`${user}:${password}`).toString('base64');

function credentialTests(registry: LocalRegistry): void {
  describe('skills pushed to and pulled from a registry that asks for a login', { timeout: 30_000 }, () => {
    const host = registry.host;
    const reference = `${host}/skills/private-review:1.0.0`;
    let work: string;
    let docker: TestRuntime;
    let podman: TestRuntime;
    let anonymous: TestRuntime;
    let wrong: TestRuntime;
    const call = (runtime: TestRuntime, method: 'GET' | 'POST', url: string, payload?: object) =>
      runtime.app.http.inject({ method, url: `${API}${url}`, ...(payload !== undefined && { payload }) });

    beforeAll(async () => {
      work = await mkdtemp(join(tmpdir(), 'toolyard-oci-login-'));
      // `docker login` writes config.json under DOCKER_CONFIG; `podman login` writes auth.json, found through REGISTRY_AUTH_FILE
      await mkdir(join(work, 'docker'));
      await writeFile(join(work, 'docker', 'config.json'), JSON.stringify({ auths: { [host]: { auth: auth('alice', PASSWORD) } } }));
      await mkdir(join(work, 'wrong'));
      await writeFile(join(work, 'wrong', 'config.json'), JSON.stringify({ auths: { [`http://${host}`]: { auth: auth('alice', 'not-the-password') } } }));
      await writeFile(join(work, 'auth.json'), JSON.stringify({ auths: { [`${host}/skills`]: { auth: auth('alice', PASSWORD) } } }));
      docker = await testRuntime({ supervisor: 'fake', env: { DOCKER_CONFIG: join(work, 'docker') } });
      podman = await testRuntime({ supervisor: 'fake', env: { REGISTRY_AUTH_FILE: join(work, 'auth.json') } });
      anonymous = await testRuntime({ supervisor: 'fake' });
      wrong = await testRuntime({ supervisor: 'fake', env: { DOCKER_CONFIG: join(work, 'wrong') } });
      const path = await writeSkill(join(work, 'src'), 'private-review', { version: '1.0.0' });
      for (const runtime of [docker, anonymous, wrong]) expect((await call(runtime, 'POST', '/skills/build', { path, tag: reference })).statusCode).toBe(200);
    });
    afterAll(async () => {
      for (const runtime of [docker, podman, anonymous, wrong]) await runtime.close();
      await rm(work, { recursive: true, force: true });
    });

    it('refuses a push without a login, or with a wrong one, as 403 naming no secret', async () => {
      const refused = await call(anonymous, 'POST', '/skills/push', { reference, no_sign: true });
      expect([refused.statusCode, refused.json<{ error: string }>().error]).toEqual([403, expect.stringContaining(`log in with docker login ${host}`) as string]);
      const badLogin = await call(wrong, 'POST', '/skills/push', { reference, no_sign: true });
      expect([badLogin.statusCode, badLogin.json<{ error: string }>().error]).toEqual([403, expect.stringContaining(`the registry refused the credentials stored for ${host}`) as string]);
      expect(badLogin.body).not.toContain('not-the-password');
    });

    it('pushes with the login of docker’s config.json', async () => {
      const pushed = await call(docker, 'POST', '/skills/push', { reference, no_sign: true });
      expect(pushed.statusCode, pushed.body).toBe(204);
      const tags = await fetch(`http://${host}/v2/skills/private-review/tags/list`, { headers: { authorization: `Basic ${auth('alice', PASSWORD)}` } });
      expect(await tags.json()).toEqual({ name: 'skills/private-review', tags: ['1.0.0'] });
    });

    it('installs with the login of podman’s auth.json, scoped to the repository namespace', async () => {
      const root = join(work, 'project');
      await mkdir(root);
      const installed = await call(podman, 'POST', '/skills', { name: reference, scope: 'project', project_root: root, clients: ['claude-code'] });
      expect(installed.statusCode, installed.body).toBe(201);
      expect(await readFile(join(root, '.claude/skills/private-review/SKILL.md'), 'utf8')).toContain('name: private-review');
    });

    it('answers 401 to an install without a login or with a wrong one (never 500), naming no secret', async () => {
      const none = await call(anonymous, 'POST', '/skills', { name: reference, clients: ['claude-code'] });
      expect([none.statusCode, none.json<{ error: string }>().error]).toEqual([401, `pulling ${reference}: the registry needs credentials (HTTP 401); log in with docker login ${host} or podman login ${host}`]);
      const bad = await call(wrong, 'GET', `/skills/content?ref=${encodeURIComponent(reference)}`);
      expect([bad.statusCode, bad.json<{ error: string }>().error]).toEqual([401, `pulling ${reference}: the registry refused the credentials stored for ${host} (HTTP 401); log in again with docker login or podman login`]);
      expect(bad.body).not.toContain('not-the-password');
    });
  });
}

if (local.registry === undefined) {
  const reason = local.reason;
  it(`registry with a login: not available here (${reason})`, () => {
    expect(reason).toMatch(/docker-registry/);
  });
} else {
  credentialTests(local.registry);
}
