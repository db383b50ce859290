import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SignJWT } from 'jose';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeSkill } from '../../src/runtime/artifacts/artifacts-testing.js';
import { CREATED } from '../../src/runtime/artifacts/layout.js';
import { createOciClient } from '../../src/runtime/artifacts/references/oci-client.js';
import { parseOciName } from '../../src/runtime/artifacts/references/oci-name.js';
import { attachReferrer } from '../../src/runtime/artifacts/references/oci-referrers.js';
import { BUNDLE_ARTIFACT_TYPE } from '../../src/runtime/artifacts/signature-format.js';
import {
  certificateBundle,
  createTestCa,
  createTestTlog,
  trustedRootJson,
  type LeafIdentity,
  type TestCa,
  type TestTlog,
} from '../../src/runtime/artifacts/sigstore-testing.js';
import { startFakeFulcio, startFakeRekor, type FakeService } from '../../src/runtime/artifacts/sigstore-services-testing.js';
import { freePort, runCli } from '../helpers/cli.js';
import { startLocalRegistry, type LocalRegistry } from '../helpers/docker-registry.js';
import { testRuntime, type TestRuntime } from './fixtures.js';

const API = '/api/v1beta';
const EMPTY = { already_current: [], drifted: [], failed: [], installed: [], missing: [], never_managed: [], pruned: [], removed_from_lock: [] };
const GITHUB = {
  uri: 'https://github.com/acme/skills/.github/workflows/release.yml@refs/tags/v1.0.0',
  issuer: 'https://token.actions.githubusercontent.com',
  repositoryUri: 'https://github.com/acme/skills',
  repositoryRef: 'refs/tags/v1.0.0',
  runnerEnvironment: 'github-hosted',
};
const local = await startLocalRegistry();

afterAll(async () => {
  await local.registry?.stop();
});

function keylessTests(registry: LocalRegistry): void {
  describe('certificate-signed skills from a real OCI registry, verified against a configured trusted root', { timeout: 60_000 }, () => {
    const host = registry.host;
    let publisher: TestRuntime;
    let consumer: TestRuntime;
    let unconfigured: TestRuntime;
    let work: string;
    let fulcio: TestCa;
    let rekor: TestTlog;
    const call = (runtime: TestRuntime, method: 'GET' | 'POST', url: string, payload?: object) =>
      runtime.app.http.inject({ method, url: `${API}${url}`, ...(payload !== undefined && { payload }) });
    const project = async (name: string) => {
      const dir = join(work, 'projects', name);
      await mkdir(dir, { recursive: true });
      return dir;
    };

    /** Builds and pushes an unsigned skill, then attaches a bundle signing its manifest with a leaf of `ca`, as cosign would. */
    const release = async (name: string, ca: TestCa, identity: LeafIdentity): Promise<string> => {
      const reference = `${host}/skills/${name}:1.0.0`;
      const path = await writeSkill(join(work, 'src', name), name, { version: '1.0.0' });
      expect((await call(publisher, 'POST', '/skills/build', { path, tag: reference })).statusCode).toBe(200);
      expect((await call(publisher, 'POST', '/skills/push', { reference, no_sign: true })).statusCode).toBe(204);
      const response = await fetch(`http://${host}/v2/skills/${name}/manifests/1.0.0`, { headers: { accept: 'application/vnd.oci.image.manifest.v1+json' } });
      const manifest = Buffer.from(await response.arrayBuffer());
      const { privateKey, publicKey }: { privateKey: KeyObject; publicKey: KeyObject } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
      const bundle = certificateBundle({ manifest, key: privateKey, certificate: await ca.issue(publicKey, identity), tlog: rekor });
      const pushed = parseOciName(reference);
      if (pushed === undefined) throw new Error(`${reference} is not an OCI reference`);
      await attachReferrer(createOciClient(), pushed, { digest: response.headers.get('docker-content-digest') ?? '', size: manifest.length }, {
        artifactType: BUNDLE_ARTIFACT_TYPE,
        data: Buffer.from(JSON.stringify(bundle)),
        annotations: { [CREATED]: new Date().toISOString() },
      });
      return reference;
    };

    beforeAll(async () => {
      work = await mkdtemp(join(tmpdir(), 'toolyard-keyless-'));
      fulcio = await createTestCa('fulcio', 'https://fulcio.example.test');
      rekor = createTestTlog('https://rekor.example.test', generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey);
      const root = join(work, 'trusted_root.json');
      await writeFile(root, JSON.stringify(trustedRootJson({ cas: [fulcio], tlogs: [rekor] })));
      publisher = await testRuntime({ supervisor: 'fake' });
      consumer = await testRuntime({ supervisor: 'fake', env: { TOOLYARD_RUNTIME_SIGSTORE_TRUSTED_ROOT: root } });
      unconfigured = await testRuntime({ supervisor: 'fake' });
    });
    afterAll(async () => {
      await Promise.all([publisher.close(), consumer.close(), unconfigured.close()]);
      await rm(work, { recursive: true, force: true });
    });

    it('records the certificate\'s identity, issuer, repository and CA as the provenance, not provisional, and sync keeps it current offline', async () => {
      const reference = await release('code-review', fulcio, GITHUB);
      const root = await project('keyless');
      const provenance = {
        cert_issuer: GITHUB.issuer,
        provisional: false,
        public_key: '',
        repository_ref: GITHUB.repositoryRef,
        repository_uri: GITHUB.repositoryUri,
        runner_environment: GITHUB.runnerEnvironment,
        signer_identity: GITHUB.uri,
        sigstore_url: 'https://fulcio.example.test',
      };
      const installed = await call(consumer, 'POST', '/skills', { name: reference, scope: 'project', project_root: root, clients: ['claude-code'] });
      expect(installed.statusCode, installed.body).toBe(201);
      expect(installed.json()).toMatchObject({ provenance, unsigned: false });
      expect((await call(consumer, 'GET', `/skills/code-review?scope=project&project_root=${encodeURIComponent(root)}`)).json()).toMatchObject({ provenance, unsigned: false });
      const lock = parse(await readFile(join(root, 'toolyard.lock.yaml'), 'utf8')) as { skills: Record<string, unknown>[] };
      expect(lock.skills[0]?.provenance).toMatchObject({ signerIdentity: GITHUB.uri, certIssuer: GITHUB.issuer, repositoryUri: GITHUB.repositoryUri, provisional: false });
      const copied = await project('copied');
      await copyFile(join(root, 'toolyard.lock.yaml'), join(copied, 'toolyard.lock.yaml'));
      expect((await call(consumer, 'POST', '/skills/sync', { project_root: copied })).json()).toEqual({ ...EMPTY, missing: ['code-review'], installed: ['code-review'] });
      expect((await call(consumer, 'POST', '/skills/sync', { project_root: copied })).json()).toEqual({ ...EMPTY, already_current: ['code-review'] });
    });

    it('trusts an identity only with the issuer the lock file records: the same SAN from another issuer is signer-mismatch', async () => {
      const lock = parse(await readFile(join(work, 'projects', 'keyless', 'toolyard.lock.yaml'), 'utf8')) as { skills: { provenance: Record<string, unknown> }[] };
      const entry = lock.skills[0];
      if (entry === undefined) throw new Error('the first test installs code-review');
      entry.provenance = { ...entry.provenance, certIssuer: 'https://accounts.elsewhere.test' };
      const root = await project('other-issuer');
      await writeFile(join(root, 'toolyard.lock.yaml'), JSON.stringify(lock));
      const synced = (await call(consumer, 'POST', '/skills/sync', { project_root: root })).json<{ failed: { name: string; reason: string; error?: string }[] }>();
      expect(synced.failed.map(({ name, reason }) => [name, reason])).toEqual([['code-review', 'signer-mismatch']]);
    });

    it('refuses a leaf from a CA the trusted root does not list (400), and any certificate bundle without a trusted root, naming the key', async () => {
      const other = await createTestCa('elsewhere', 'https://elsewhere.example.test');
      const reference = await release('foreign', other, { email: 'eve@example.test', issuer: 'https://accounts.example.test' });
      const refused = await call(consumer, 'POST', '/skills', { name: reference, clients: ['claude-code'] });
      expect(refused.statusCode).toBe(400);
      expect(refused.json<{ error: string }>().error).toMatch(/foreign:1.0.0: its signature does not verify: Failed to verify certificate chain/);
      const unverifiable = await call(unconfigured, 'POST', '/skills', { name: `${host}/skills/code-review:1.0.0`, clients: ['claude-code'] });
      expect(unverifiable.statusCode).toBe(400);
      expect(unverifiable.json<{ error: string }>().error).toMatch(
        /its signature does not verify: it is signed by a certificate, and no trusted root is configured to verify it against; set sigstore\.trustedRoot \(TOOLYARD_RUNTIME_SIGSTORE_TRUSTED_ROOT\)$/,
      );
    });

    it('sync fails an entry whose certificate bundle does not verify with signature-invalid', async () => {
      const root = await project('sync-foreign');
      const entry = { name: 'foreign', version: '1.0.0', source: `${host}/skills/foreign:1.0.0`, resolvedReference: `${host}/skills/foreign:1.0.0`, digest: (await fetch(`http://${host}/v2/skills/foreign/manifests/1.0.0`, { method: 'HEAD', headers: { accept: 'application/vnd.oci.image.manifest.v1+json' } })).headers.get('docker-content-digest'), contentDigest: 'sha256:0', clients: ['claude-code'] };
      await writeFile(join(root, 'toolyard.lock.yaml'), JSON.stringify({ version: 1, skills: [entry] }));
      const synced = (await call(consumer, 'POST', '/skills/sync', { project_root: root })).json<{ failed: { name: string; reason: string }[] }>();
      expect(synced.failed.map(({ name, reason }) => [name, reason])).toEqual([['foreign', 'signature-invalid']]);
    });
  });
}

function keylessPushTests(registry: LocalRegistry): void {
  describe('push with identity_token: a Fulcio certificate, a Rekor entry, the bundle attached as a referrer', { timeout: 60_000 }, () => {
    const host = registry.host;
    let fulcio: FakeService;
    let rekor: FakeService & { tlog: TestTlog };
    let publisher: TestRuntime;
    let consumer: TestRuntime;
    let rekorless: TestRuntime;
    let work: string;
    const token = (claims: Record<string, unknown>) => new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).setIssuer('https://accounts.example.test').setIssuedAt().setExpirationTime('10m').sign(Buffer.from('not checked by the fake'));
    const call = (runtime: TestRuntime, method: 'GET' | 'POST', url: string, payload?: object) =>
      runtime.app.http.inject({ method, url: `${API}${url}`, ...(payload !== undefined && { payload }) });
    const build = async (runtime: TestRuntime, name: string) => {
      const reference = `${host}/skills/${name}:1.0.0`;
      const path = await writeSkill(join(work, 'src', name), name, { version: '1.0.0' });
      expect((await call(runtime, 'POST', '/skills/build', { path, tag: reference })).statusCode).toBe(200);
      return reference;
    };

    beforeAll(async () => {
      work = await mkdtemp(join(tmpdir(), 'toolyard-keyless-push-'));
      const ca = await createTestCa('fulcio', 'https://fulcio.example.test');
      fulcio = await startFakeFulcio(ca);
      rekor = await startFakeRekor(generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey);
      const root = join(work, 'trusted_root.json');
      await writeFile(root, JSON.stringify(trustedRootJson({ cas: [ca], tlogs: [rekor.tlog] })));
      const sigstore = { TOOLYARD_RUNTIME_SIGSTORE_FULCIO_URL: fulcio.url, TOOLYARD_RUNTIME_SIGSTORE_REKOR_URL: rekor.url };
      publisher = await testRuntime({ supervisor: 'fake', env: sigstore });
      consumer = await testRuntime({ supervisor: 'fake', env: { TOOLYARD_RUNTIME_SIGSTORE_TRUSTED_ROOT: root } });
      rekorless = await testRuntime({ supervisor: 'fake', env: { TOOLYARD_RUNTIME_SIGSTORE_FULCIO_URL: fulcio.url } });
    });
    afterAll(async () => {
      await Promise.all([publisher.close(), consumer.close(), rekorless.close(), fulcio.close(), rekor.close()]);
      await rm(work, { recursive: true, force: true });
    });

    it('signs with a certificate for the token\'s email, logged in Rekor, that installs verified against the trusted root', async () => {
      const reference = await build(publisher, 'keyless-review');
      const pushed = await call(publisher, 'POST', '/skills/push', { reference, identity_token: await token({ sub: 'dev-123', email: 'dev@example.test', email_verified: true }) });
      expect(pushed.statusCode, pushed.body).toBe(204);
      const installed = await call(consumer, 'POST', '/skills', { name: reference, clients: ['claude-code'] });
      expect(installed.statusCode, installed.body).toBe(201);
      expect(installed.json()).toMatchObject({
        provenance: { signer_identity: 'dev@example.test', cert_issuer: 'https://accounts.example.test', sigstore_url: 'https://fulcio.example.test', provisional: false, public_key: '' },
        unsigned: false,
      });
    });

    it('toolyard skill push --identity-token-file signs keylessly with the token the file holds', async () => {
      const reference = await build(publisher, 'cli-review');
      const file = join(work, 'token');
      await writeFile(join(work, 'token'), `${await token({ sub: 'https://github.com/acme/skills/.github/workflows/release.yml@refs/heads/main' })}\n`, { mode: 0o600 });
      const cli = (...args: string[]) => runCli(args, publisher.env);
      expect(await cli('skill', 'push', reference, '--identity-token-file', file, '--key', join(work, 'key.pem'))).toMatchObject({ code: 1, output: expect.stringContaining('give either --key or --identity-token-file, not both') as string });
      expect(await cli('skill', 'push', reference, '--identity-token-file', file)).toEqual({ code: 0, output: `pushed ${reference} signed\n` });
      const installed = await call(consumer, 'POST', '/skills', { name: reference, clients: ['claude-code'] });
      expect(installed.json()).toMatchObject({ provenance: { signer_identity: 'https://github.com/acme/skills/.github/workflows/release.yml@refs/heads/main', cert_issuer: 'https://accounts.example.test' } });
    });

    it('refuses a token Fulcio refuses (403) or that is no JWT (400) before pushing anything, an unreachable Fulcio (502), and a Rekor left unconfigured (501)', async () => {
      const reference = await build(publisher, 'refused-review');
      const refused = await call(publisher, 'POST', '/skills/push', { reference, identity_token: await token({ sub: 'refused' }) });
      expect({ status: refused.statusCode, body: refused.json<unknown>() }).toEqual({
        status: 403,
        body: { error: `Fulcio at ${fulcio.url} refused the identity token (HTTP 401): There was an error processing the identity token` },
      });
      const garbled = await call(publisher, 'POST', '/skills/push', { reference, identity_token: 'not-a-jwt' });
      expect({ status: garbled.statusCode, body: garbled.json<unknown>() }).toEqual({
        status: 400,
        body: { error: 'identity_token is not an OIDC identity token (a JWT with a verified email or a sub claim)' },
      });
      expect((await fetch(`http://${host}/v2/skills/refused-review/manifests/1.0.0`, { method: 'HEAD' })).status).toBe(404);
      const unreachable = await testRuntime({ supervisor: 'fake', env: { TOOLYARD_RUNTIME_SIGSTORE_FULCIO_URL: `http://127.0.0.1:${String(await freePort())}`, TOOLYARD_RUNTIME_SIGSTORE_REKOR_URL: rekor.url } });
      try {
        const down = await call(unreachable, 'POST', '/skills/push', { reference: await build(unreachable, 'unreachable-review'), identity_token: await token({ sub: 'dev-123' }) });
        expect(down.statusCode).toBe(502);
        expect(down.json<{ error: string }>().error).toMatch(/^Fulcio at http:\/\/127\.0\.0\.1:\d+ could not be reached \(.*ECONNREFUSED/);
      } finally {
        await unreachable.close();
      }
      const unconfigured = await call(rekorless, 'POST', '/skills/push', { reference: await build(rekorless, 'rekorless-review'), identity_token: await token({ sub: 'dev-123' }) });
      expect(unconfigured.statusCode).toBe(501);
      expect(unconfigured.json<{ error: string }>().error).toBe(
        'keyless signing with identity_token needs a Fulcio and a Rekor: set sigstore.fulcioUrl (TOOLYARD_RUNTIME_SIGSTORE_FULCIO_URL) and sigstore.rekorUrl (TOOLYARD_RUNTIME_SIGSTORE_REKOR_URL); or sign with key, or push with no_sign: true',
      );
    });
  });
}

if (local.registry === undefined) {
  const reason = local.reason;
  it(`real OCI registry: not available here (${reason})`, () => {
    expect(reason).toMatch(/docker-registry/);
  });
} else {
  keylessTests(local.registry);
  keylessPushTests(local.registry);
}
