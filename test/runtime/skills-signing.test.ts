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

    const signedPush = (body: object) => publish('POST', '/skills/push', body, { 'x-service-key-signing-capability': capability });
    const registryJson = async (path: string, accept: string) => {
      const response = await fetch(`http://${host}/v2/${path}`, { headers: { accept } });
      return { status: response.status, body: response.ok ? ((await response.json()) as Record<string, unknown>) : undefined };
    };
    let built: string;

    beforeAll(async () => {
      publisher = await testRuntime({ supervisor: 'fake' });
      work = await mkdtemp(join(tmpdir(), 'toolyard-skill-signing-'));
      await mkdir(join(work, 'keys'));
      keyA = await writeKey(join(work, 'keys'), 'a');
      capability = await readFile(join(runtimePaths(publisher.env).state, 'signing-capability'), 'utf8');
      const path = await writeSkill(join(work, 'src'), 'code-review', { version: '1.0.0' });
      await publish('POST', '/skills/build', { path, tag: reference });
      built = (await publish('GET', '/skills/builds')).json<{ builds: { digest: string }[] }>().builds[0]?.digest ?? '';
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
      for (const headers of [{}, { 'x-service-key-signing-capability': 'guessed' }] as Record<string, string>[]) {
        const response = await publish('POST', '/skills/push', { reference, key: keyA }, headers);
        expect({ status: response.statusCode, body: response.json<unknown>() }).toEqual({ status: 403, body: { error } });
      }
    });

    it('refuses keys it cannot sign with (400) and keyless signing without a configured Fulcio (501)', async () => {
      const edKey = await writeKey(join(work, 'keys'), 'ed', 'ed25519');
      const cases: [object, number, RegExp][] = [
        [{ reference, key: 'keys/a.pem' }, 400, /^key keys\/a.pem must be an absolute path/],
        [{ reference, key: join(work, 'keys', 'none.pem') }, 400, /cannot be read \(ENOENT\)$/],
        [{ reference, key: edKey }, 400, /is ed25519 key; sign with an ECDSA P-256 key$/],
        [{ reference, identity_token: 'token' }, 501, /^keyless signing with identity_token needs a Fulcio and a Rekor/],
      ];
      for (const [body, status, error] of cases) {
        const response = await signedPush(body);
        expect(response.statusCode, response.body).toBe(status);
        expect(response.json<{ error: string }>().error).toMatch(error);
      }
    });

    it('a key push attaches a sigstore bundle to the manifest, listed under the referrers tag since this registry has no referrers API', async () => {
      const pushed = await signedPush({ reference, key: keyA });
      expect(pushed.statusCode, pushed.body).toBe(204);
      expect((await fetch(`http://${host}/v2/skills/code-review/referrers/${built}`)).status).toBe(404);
      const index = await registryJson(`skills/code-review/manifests/${built.replace(':', '-')}`, 'application/vnd.oci.image.index.v1+json');
      const entries = (index.body?.manifests ?? []) as { digest: string; artifactType: string }[];
      expect(entries).toEqual([expect.objectContaining({ artifactType: 'application/vnd.dev.sigstore.bundle.v0.3+json' })]);
      const referrer = await registryJson(`skills/code-review/manifests/${entries[0]?.digest ?? ''}`, 'application/vnd.oci.image.manifest.v1+json');
      expect(referrer.body).toMatchObject({ artifactType: 'application/vnd.dev.sigstore.bundle.v0.3+json', subject: { digest: built } });
      const layer = (referrer.body?.layers as { digest: string }[])[0]?.digest ?? '';
      const bundle = (await (await fetch(`http://${host}/v2/skills/code-review/blobs/${layer}`)).json()) as Record<string, unknown>;
      expect(bundle).toMatchObject({
        mediaType: 'application/vnd.dev.sigstore.bundle.v0.3+json',
        verificationMaterial: { publicKey: { hint: expect.stringMatching(/^sha256:[0-9a-f]{64}$/) as string } },
        messageSignature: { messageDigest: { algorithm: 'SHA2_256', digest: Buffer.from(built.slice(7), 'hex').toString('base64') } },
      });
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
