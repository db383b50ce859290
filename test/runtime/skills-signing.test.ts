import { generateKeyPairSync } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeSkill } from '../../src/runtime/artifacts/artifacts-testing.js';
import { runtimePaths } from '../../src/runtime/paths.js';
import { startLocalRegistry, type LocalRegistry } from '../helpers/docker-registry.js';
import { testRuntime, type TestRuntime } from './fixtures.js';

const API = '/api/v1beta';
const local = await startLocalRegistry();

afterAll(async () => {
  await local.registry?.stop();
});

/** A PEM private key of the given kind written to `dir`, and its path. */
async function writeKey(dir: string, name: string, kind: 'ec' | 'ed25519' = 'ec'): Promise<string> {
  const { privateKey } = kind === 'ec' ? generateKeyPairSync('ec', { namedCurve: 'P-256' }) : generateKeyPairSync('ed25519');
  const path = join(dir, `${name}.pem`);
  await writeFile(path, privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
  return path;
}

function signingTests(registry: LocalRegistry): void {
  describe('signing skills and plugins pushed to a real OCI registry', { timeout: 30_000 }, () => {
    const host = registry.host;
    const reference = `${host}/skills/code-review:1.0.0`;
    let publisher: TestRuntime;
    let work: string;
    let keyA: string;
    let capability: string;
    const publish = (method: 'GET' | 'POST', url: string, payload?: object, headers: Record<string, string> = {}) =>
      publisher.app.http.inject({ method, url: `${API}${url}`, headers, ...(payload !== undefined && { payload }) });

    beforeAll(async () => {
      publisher = await testRuntime({ supervisor: 'fake' });
      work = await mkdtemp(join(tmpdir(), 'toolyard-skill-signing-'));
      await mkdir(join(work, 'keys'));
      keyA = await writeKey(join(work, 'keys'), 'a');
      capability = await readFile(join(runtimePaths(publisher.env).state, 'signing-capability'), 'utf8');
      const path = await writeSkill(join(work, 'src'), 'code-review', { version: '1.0.0' });
      await publish('POST', '/skills/build', { path, tag: reference });
    });
    afterAll(async () => {
      await publisher.close();
      await rm(work, { recursive: true, force: true });
    });

    it('writes a fresh signing capability readable by its user only when the runtime starts', async () => {
      const file = join(runtimePaths(publisher.env).state, 'signing-capability');
      expect((await stat(file)).mode & 0o777).toBe(0o600);
      expect(capability).toMatch(/^[0-9a-f]{64}$/);
    });

    it('refuses a key push without the capability header, or with another value (403)', async () => {
      const error = `signing with a key needs the header X-Service-Key-Signing-Capability holding the value the runtime wrote to ${join(runtimePaths(publisher.env).state, 'signing-capability')}`;
      for (const headers of [{}, { 'x-service-key-signing-capability': 'guessed' }]) {
        const response = await publish('POST', '/skills/push', { reference, key: keyA }, headers);
        expect({ status: response.statusCode, body: response.json<unknown>() }).toEqual({ status: 403, body: { error } });
      }
    });
  });
}

if (local.registry === undefined) {
  const reason = local.reason;
  it(`real OCI registry: not available here (${reason})`, () => {
    expect(reason).toMatch(/docker-registry/);
  });
} else {
  signingTests(local.registry);
}
