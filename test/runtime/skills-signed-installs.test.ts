import { createHash, generateKeyPairSync } from 'node:crypto';
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writePlugin, writeSkill } from '../../src/runtime/artifacts/artifacts-testing.js';
import { runtimePaths } from '../../src/runtime/paths.js';
import { startLocalRegistry, type LocalRegistry } from '../helpers/docker-registry.js';
import { runCli } from '../helpers/cli.js';
import { testRuntime, type TestRuntime } from './fixtures.js';

const API = '/api/v1beta';
const EMPTY = { already_current: [], drifted: [], failed: [], installed: [], missing: [], never_managed: [], pruned: [], removed_from_lock: [] };
const BUNDLE_TYPE = 'application/vnd.dev.sigstore.bundle.v0.3+json';
const local = await startLocalRegistry();

afterAll(async () => {
  await local.registry?.stop();
});

type LockFile = { skills: Record<string, unknown>[] };

function signedInstallTests(registry: LocalRegistry): void {
  describe('installing signed skills and plugins from a real OCI registry', { timeout: 60_000 }, () => {
    const host = registry.host;
    const tag = (name: string, version: string) => `${host}/skills/${name}:${version}`;
    let publisher: TestRuntime;
    let consumer: TestRuntime;
    let work: string;
    let capability: string;
    const keys: Record<'a' | 'b', { path: string; identity: string; pem: string }> = {} as never;
    const publish = (method: 'GET' | 'POST', url: string, payload?: object) =>
      publisher.app.http.inject({ method, url: `${API}${url}`, headers: { 'x-service-key-signing-capability': capability }, ...(payload !== undefined && { payload }) });
    const consume = (method: 'GET' | 'POST', url: string, payload?: object) => consumer.app.http.inject({ method, url: `${API}${url}`, ...(payload !== undefined && { payload }) });
    const lockOf = async (root: string) => parse(await readFile(join(root, 'toolyard.lock.yaml'), 'utf8')) as LockFile;
    const project = async (name: string) => {
      const dir = join(work, 'projects', name);
      await mkdir(dir, { recursive: true });
      return dir;
    };

    /** Builds a skill whose body says `body` under `reference` and pushes it, signed with `key` or unsigned; answers its manifest digest. */
    const release = async (reference: string, body: string, key?: 'a' | 'b') => {
      const name = reference.split('/').at(-1)?.split(':')[0] ?? '';
      const path = await writeSkill(join(work, 'src', body), name, { version: '1.0.0', extra: { 'NOTES.md': body } });
      expect((await publish('POST', '/skills/build', { path, tag: reference })).statusCode).toBe(200);
      const pushed = await publish('POST', '/skills/push', { reference, ...(key === undefined ? { no_sign: true } : { key: keys[key].path }) });
      expect(pushed.statusCode, pushed.body).toBe(204);
      const builds = (await publish('GET', '/skills/builds')).json<{ builds: { tag: string; digest: string }[] }>().builds;
      return builds.find((build) => build.tag === reference)?.digest ?? '';
    };
    /** The sigstore bundle attached to `digest` in the repository, as the registry serves it. */
    const attachedBundle = async (repository: string, digest: string) => {
      const get = async (path: string, accept = 'application/vnd.oci.image.manifest.v1+json') => (await fetch(`http://${host}/v2/${repository}/${path}`, { headers: { accept } })).json() as Promise<Record<string, unknown>>;
      const index = await get(`manifests/${digest.replace(':', '-')}`, 'application/vnd.oci.image.index.v1+json');
      const referrer = await get(`manifests/${(index.manifests as { digest: string }[])[0]?.digest ?? ''}`);
      return { referrer, bundle: await get(`blobs/${(referrer.layers as { digest: string }[])[0]?.digest ?? ''}`) };
    };

    beforeAll(async () => {
      publisher = await testRuntime({ supervisor: 'fake' });
      consumer = await testRuntime({ supervisor: 'fake' });
      work = await mkdtemp(join(tmpdir(), 'toolyard-signed-installs-'));
      capability = await readFile(join(runtimePaths(publisher.env).state, 'signing-capability'), 'utf8');
      await mkdir(join(work, 'keys'));
      for (const name of ['a', 'b'] as const) {
        const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
        const path = join(work, 'keys', `${name}.pem`);
        await writeFile(path, privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
        const identity = `sha256:${createHash('sha256').update(publicKey.export({ type: 'spki', format: 'der' })).digest('hex')}`;
        keys[name] = { path, identity, pem: publicKey.export({ type: 'spki', format: 'pem' }).toString() };
      }
    });
    afterAll(async () => {
      await publisher.close();
      await consumer.close();
      await rm(work, { recursive: true, force: true });
    });

    it('records who signed: the install answer, the details, the lock entry (camelCase) and the content preview', async () => {
      const reference = tag('code-review', '1.0.0');
      const digest = await release(reference, 'first', 'a');
      const root = await project('signed');
      const provenance = { cert_issuer: '', provisional: true, public_key: keys.a.pem, repository_ref: '', repository_uri: '', runner_environment: '', signer_identity: keys.a.identity, sigstore_url: '' };
      const installed = await consume('POST', '/skills', { name: reference, scope: 'project', project_root: root, clients: ['claude-code'] });
      expect(installed.statusCode, installed.body).toBe(201);
      expect(installed.json()).toMatchObject({ skill: { digest }, provenance, unsigned: false });
      const details = await consume('GET', `/skills/code-review?scope=project&project_root=${encodeURIComponent(root)}`);
      expect(details.json()).toMatchObject({ provenance, unsigned: false });
      const entry = (await lockOf(root)).skills[0];
      expect(entry).toMatchObject({ digest, provenance: { signerIdentity: keys.a.identity, certIssuer: '', provisional: true, publicKey: keys.a.pem } });
      expect(entry?.unsigned).toBeUndefined();
      expect((await consume('GET', `/skills/content?ref=${encodeURIComponent(reference)}`)).statusCode).toBe(200);
    });

    it('refuses content whose bundle does not verify: a tampered signature, a bundle for other content, another key than it names', async () => {
      const reference = tag('tampered', '1.0.0');
      const digest = await release(reference, 'tampered', 'a');
      const { referrer, bundle } = await attachedBundle('skills/tampered', digest);
      const signed = bundle.messageSignature as { signature: string };
      const signature = Buffer.from(signed.signature, 'base64');
      signature.writeUInt8(signature.readUInt8(signature.length - 1) ^ 1, signature.length - 1);
      const forged = { ...bundle, messageSignature: { ...signed, signature: signature.toString('base64') } };
      const cases: [Record<string, unknown>, Record<string, string>, RegExp][] = [
        [forged, {}, /its signature does not verify: signature verification failed$/],
        [{ ...bundle, messageSignature: { ...signed, messageDigest: { algorithm: 'SHA2_256', digest: Buffer.alloc(32).toString('base64') } } }, {}, /it signs other content$/],
        [bundle, { 'dev.toolyard.signature.public-key': keys.b.pem }, new RegExp(`it names the key ${keys.a.identity}, not ${keys.b.identity}$`)],
      ];
      for (const [position, [content, annotations, error]] of cases.entries()) {
        // what an attacker with write access to the repository could attach: a bundle of their own beside the build
        const data = Buffer.from(JSON.stringify(content));
        const layer = `sha256:${createHash('sha256').update(data).digest('hex')}`;
        const upload = await fetch(`http://${host}/v2/skills/tampered/blobs/uploads/`, { method: 'POST' });
        const location = new URL(upload.headers.get('location') ?? '', `http://${host}`);
        location.searchParams.set('digest', layer);
        expect((await fetch(location, { method: 'PUT', body: data })).status).toBe(201);
        const manifest = { ...referrer, layers: [{ mediaType: BUNDLE_TYPE, digest: layer, size: data.length }], annotations: { ...(referrer.annotations as Record<string, string>), ...annotations } };
        const bytes = Buffer.from(JSON.stringify(manifest));
        const manifestDigest = `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
        expect((await fetch(`http://${host}/v2/skills/tampered/manifests/${manifestDigest}`, { method: 'PUT', headers: { 'content-type': 'application/vnd.oci.image.manifest.v1+json' }, body: bytes })).status).toBe(201);
        const index = { schemaVersion: 2, mediaType: 'application/vnd.oci.image.index.v1+json', manifests: [{ mediaType: 'application/vnd.oci.image.manifest.v1+json', digest: manifestDigest, size: bytes.length, artifactType: BUNDLE_TYPE }] };
        expect((await fetch(`http://${host}/v2/skills/tampered/manifests/${digest.replace(':', '-')}`, { method: 'PUT', headers: { 'content-type': 'application/vnd.oci.image.index.v1+json' }, body: JSON.stringify(index) })).status).toBe(201);
        const refused = await consume('POST', '/skills', { name: reference, clients: ['claude-code'] });
        expect(refused.statusCode, `case ${String(position)}`).toBe(400);
        expect(refused.json<{ error: string }>().error).toMatch(error);
        expect((await consume('GET', `/skills/content?ref=${encodeURIComponent(reference)}`)).statusCode).toBe(400);
      }
    });

    it('refuses unsigned content over a lock entry recording a signer unless allow_unsigned, and any other signer (403)', async () => {
      const root = await project('trust');
      const signed = tag('trusted', '1.0.0');
      await release(signed, 'trusted-a', 'a');
      expect((await consume('POST', '/skills', { name: signed, scope: 'project', project_root: root, clients: ['claude-code'] })).statusCode).toBe(201);
      const unsigned = tag('trusted', '2.0.0');
      await release(unsigned, 'trusted-unsigned');
      const refused = await consume('POST', '/skills', { name: unsigned, scope: 'project', project_root: root, clients: ['claude-code'] });
      expect({ status: refused.statusCode, body: refused.json<unknown>() }).toEqual({
        status: 403,
        body: { error: `trusted is unsigned, but the lock file records it as signed by ${keys.a.identity}; pass allow_unsigned to install it anyway` },
      });
      const other = tag('trusted', '3.0.0');
      await release(other, 'trusted-b', 'b');
      const mismatch = await consume('POST', '/skills', { name: other, scope: 'project', project_root: root, clients: ['claude-code'] });
      expect({ status: mismatch.statusCode, body: mismatch.json<unknown>() }).toEqual({ status: 403, body: { error: `trusted is signed by ${keys.b.identity}, but the lock file records ${keys.a.identity}` } });
      const allowed = await consume('POST', '/skills', { name: unsigned, scope: 'project', project_root: root, clients: ['claude-code'], allow_unsigned: true });
      expect(allowed.statusCode, allowed.body).toBe(201);
      expect((await lockOf(root)).skills[0]).toMatchObject({ unsigned: true, resolvedReference: unsigned });
    });

    it('sync refuses what the lock file does not trust: signature-invalid, signer-mismatch, unsigned-rejected', async () => {
      const source = (await lockOf(join(work, 'projects', 'signed'))).skills[0] ?? {};
      const pinnedTampered = await fetch(`http://${host}/v2/skills/tampered/manifests/1.0.0`, { method: 'HEAD', headers: { accept: 'application/vnd.oci.image.manifest.v1+json' } });
      const unsignedDigest = (await publish('GET', '/skills/builds')).json<{ builds: { tag: string; digest: string }[] }>().builds.find((build) => build.tag === tag('trusted', '2.0.0'))?.digest;
      const entries = [
        { ...source, provenance: { ...(source.provenance as object), signerIdentity: keys.b.identity } },
        { ...source, name: 'tampered', source: tag('tampered', '1.0.0'), resolvedReference: tag('tampered', '1.0.0'), digest: pinnedTampered.headers.get('docker-content-digest') },
        { ...source, name: 'trusted', source: tag('trusted', '2.0.0'), resolvedReference: tag('trusted', '2.0.0'), digest: unsignedDigest },
      ];
      const root = await project('sync-trust');
      await writeFile(join(root, 'toolyard.lock.yaml'), stringify({ version: 1, skills: entries }));
      const synced = await consume('POST', '/skills/sync', { project_root: root });
      expect({ ...synced.json<object>(), failed: [] }).toEqual({ ...EMPTY, missing: ['code-review', 'tampered', 'trusted'] });
      expect(synced.json<{ failed: { name: string; reason: string }[] }>().failed.map(({ name, reason }) => [name, reason])).toEqual([
        ['code-review', 'signer-mismatch'],
        ['tampered', 'signature-invalid'],
        ['trusted', 'unsigned-rejected'],
      ]);
    });

    it('sync verifies stored bundles again with nothing contacted, and reinstalls what no longer verifies', async () => {
      const root = await project('copied');
      await copyFile(join(work, 'projects', 'signed', 'toolyard.lock.yaml'), join(root, 'toolyard.lock.yaml'));
      expect((await consume('POST', '/skills/sync', { project_root: root })).json()).toEqual({ ...EMPTY, missing: ['code-review'], installed: ['code-review'] });
      expect((await consume('POST', '/skills/sync', { project_root: root })).json()).toEqual({ ...EMPTY, already_current: ['code-review'] });
      const recordsFile = join(runtimePaths(consumer.env).state, 'skills.json');
      const records = JSON.parse(await readFile(recordsFile, 'utf8')) as { records: { project_root: string; signature: { bundle: { messageSignature: { signature: string } } } }[] };
      const record = records.records.find((item) => item.project_root === root);
      expect(record?.signature.bundle).toMatchObject({ mediaType: BUNDLE_TYPE });
      const signature = record?.signature.bundle.messageSignature;
      if (signature !== undefined) signature.signature = Buffer.alloc(70).toString('base64');
      await writeFile(recordsFile, JSON.stringify(records));
      expect((await consume('POST', '/skills/sync', { project_root: root, check: true })).json()).toEqual({ ...EMPTY, drifted: ['code-review'] });
      expect((await consume('POST', '/skills/sync', { project_root: root })).json()).toEqual({ ...EMPTY, drifted: ['code-review'], installed: ['code-review'] });
      expect((await consume('POST', '/skills/sync', { project_root: root })).json()).toEqual({ ...EMPTY, already_current: ['code-review'] });
    });

    it('upgrade blocks another signer or unsigned content over a signed entry, naming the new signer, unless allow_signer_change', async () => {
      const reference = tag('release-notes', 'stable');
      const first = await release(reference, 'notes-a', 'a');
      const root = await project('upgrade');
      expect((await consume('POST', '/skills', { name: reference, scope: 'project', project_root: root, clients: ['claude-code'] })).statusCode).toBe(201);
      const upgrade = async (extra: object = {}) => (await consume('POST', '/skills/upgrade', { project_root: root, ...extra })).json<{ outcomes: Record<string, unknown>[] }>().outcomes[0];
      const second = await release(reference, 'notes-a2', 'a');
      expect(await upgrade({ preview: true })).toMatchObject({ status: 'upgrade-available', old_digest: first, new_digest: second, new_signer_identity: keys.a.identity, trust_anchor_changed: false });
      const third = await release(reference, 'notes-b', 'b');
      expect(await upgrade()).toMatchObject({ status: 'signer-change-blocked', new_digest: third, new_signer_identity: keys.b.identity, trust_anchor_changed: true });
      expect((await lockOf(root)).skills[0]).toMatchObject({ digest: first, provenance: { signerIdentity: keys.a.identity } });
      expect(await upgrade({ allow_signer_change: true })).toMatchObject({ status: 'upgraded', new_digest: third, trust_anchor_changed: true });
      expect((await lockOf(root)).skills[0]).toMatchObject({ digest: third, provenance: { signerIdentity: keys.b.identity } });
      const fourth = await release(reference, 'notes-unsigned');
      expect(await upgrade()).toMatchObject({ status: 'signer-change-blocked', new_digest: fourth, new_signer_identity: '', trust_anchor_changed: true });
      expect(await upgrade({ allow_signer_change: true })).toMatchObject({ status: 'upgraded', trust_anchor_changed: true });
      expect((await lockOf(root)).skills[0]).toMatchObject({ digest: fourth, unsigned: true });
    });

    it('a signed plugin shows its signer as its signature; toolyard plugin push --key presents the running runtime\'s capability', async () => {
      const reference = `${host}/plugins/review-kit:1.0.0`;
      const env = publisher.env;
      const path = await writePlugin(join(work, 'src'), 'review-kit');
      const cli = (...args: string[]) => runCli(args, env);
      expect((await cli('plugin', 'build', path, '--tag', reference)).code).toBe(0);
      expect(await cli('plugin', 'push', reference, '--key', keys.b.path, '--no-sign')).toMatchObject({ code: 1, output: expect.stringContaining('give either --key or --no-sign, not both') as string });
      expect(await cli('plugin', 'push', reference, '--key', keys.b.path)).toEqual({ code: 0, output: `pushed ${reference} signed\n` });
      const installed = await consume('POST', '/plugins', { name: reference, clients: ['claude-code'] });
      expect(installed.statusCode, installed.body).toBe(201);
      expect(installed.json()).toMatchObject({ plugin: { signature: keys.b.identity }, provenance: { signer_identity: keys.b.identity }, unsigned: false });
      expect((await consume('GET', '/plugins/review-kit')).json()).toMatchObject({ installed_plugin: { signature: keys.b.identity }, trust_unrecorded: false, unsigned: false });
      expect(await readFile(join(runtimePaths(env).state, 'signing-capability'), 'utf8')).toBe(capability);
    });

    it('with the registry down, sync still finds signed installs current by their stored bundles, and fails what needs fetching', async () => {
      await registry.stop();
      const root = join(work, 'projects', 'copied');
      expect((await consume('POST', '/skills/sync', { project_root: root })).json()).toEqual({ ...EMPTY, already_current: ['code-review'] });
      const recordsFile = join(runtimePaths(consumer.env).state, 'skills.json');
      const records = JSON.parse(await readFile(recordsFile, 'utf8')) as { records: { project_root: string; signature: { public_key: string } }[] };
      const record = records.records.find((item) => item.project_root === root);
      if (record !== undefined) record.signature.public_key = keys.b.pem;
      await writeFile(recordsFile, JSON.stringify(records));
      const synced = await consume('POST', '/skills/sync', { project_root: root });
      expect(synced.json()).toMatchObject({ drifted: ['code-review'], failed: [{ name: 'code-review', reason: 'registry-unreachable' }] });
    });
  });
}

if (local.registry === undefined) {
  const reason = local.reason;
  it(`real OCI registry: not available here (${reason})`, () => {
    expect(reason).toMatch(/docker-registry/);
  });
} else {
  signedInstallTests(local.registry);
}
