import { generateKeyPairSync } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { certificateBundle, createTestCa, createTestTlog, trustedRootJson, type TestCa, type TestTlog } from './sigstore-testing.js';
import { verifyManifestSignature } from './signatures.js';
import { trustedRootSource, type SigstoreTrust } from './trusted-root.js';

const KEY = 'sigstore.trustedRoot (TOOLYARD_RUNTIME_SIGSTORE_TRUSTED_ROOT)';
const manifest = Buffer.from('{"schemaVersion":2}');
const signer = () => generateKeyPairSync('ec', { namedCurve: 'P-256' });

describe('certificate signatures against a trusted root', () => {
  let dir: string;
  let ca: TestCa;
  let tlog: TestTlog;
  let trust: SigstoreTrust | undefined;
  const write = async (name: string, content: unknown) => {
    const path = join(dir, name);
    await writeFile(path, typeof content === 'string' ? content : JSON.stringify(content));
    return path;
  };

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'toolyard-trusted-root-'));
    ca = await createTestCa('fulcio', 'https://fulcio.example.test');
    tlog = createTestTlog('https://rekor.example.test', generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey);
    // entries before ours, so its inclusion proof has hashes to check
    for (const other of ['a', 'b', 'c', 'd', 'e']) tlog.append(Buffer.from(other));
    trust = await trustedRootSource(await write('root.json', trustedRootJson({ cas: [ca], tlogs: [tlog] })), KEY)();
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('names the certificate\'s SAN, the OIDC issuer and the GitHub Actions extensions, and the CA\'s URI', async () => {
    const { privateKey, publicKey } = signer();
    const certificate = await ca.issue(publicKey, {
      uri: 'https://github.com/acme/skills/.github/workflows/release.yml@refs/tags/v1.0.0',
      issuer: 'https://token.actions.githubusercontent.com',
      repositoryUri: 'https://github.com/acme/skills',
      repositoryRef: 'refs/tags/v1.0.0',
      runnerEnvironment: 'github-hosted',
    });
    const bundle = certificateBundle({ manifest, key: privateKey, certificate, tlog });
    expect(verifyManifestSignature({ bundle, publicKey: '', manifest, what: 'x' }, { trust })).toEqual({
      cert_issuer: 'https://token.actions.githubusercontent.com',
      provisional: false,
      public_key: '',
      repository_ref: 'refs/tags/v1.0.0',
      repository_uri: 'https://github.com/acme/skills',
      runner_environment: 'github-hosted',
      signer_identity: 'https://github.com/acme/skills/.github/workflows/release.yml@refs/tags/v1.0.0',
      sigstore_url: 'https://fulcio.example.test',
    });
  });

  it('refuses a leaf of another CA, a bundle with no tlog entry when the root lists one, a certificate that does not parse, and any bundle without a trusted root', async () => {
    const { privateKey, publicKey } = signer();
    const other = await createTestCa('other', 'https://other.example.test');
    const foreign = certificateBundle({ manifest, key: privateKey, certificate: await other.issue(publicKey, { email: 'eve@example.test', issuer: 'https://accounts.example.test' }), tlog });
    expect(() => verifyManifestSignature({ bundle: foreign, publicKey: '', manifest, what: 'x' }, { trust })).toThrow(/^x: its signature does not verify: Failed to verify certificate chain/);
    const certificate = await ca.issue(publicKey, { email: 'dev@example.test', issuer: 'https://accounts.example.test' });
    const untimed = certificateBundle({ manifest, key: privateKey, certificate });
    expect(() => verifyManifestSignature({ bundle: untimed, publicKey: '', manifest, what: 'x' }, { trust })).toThrow(/expected 1 timestamps, got 0$/);
    const garbled = { ...untimed, verificationMaterial: { certificate: { rawBytes: Buffer.from('not a certificate').toString('base64') }, tlogEntries: [], timestampVerificationData: { rfc3161Timestamps: [] } } };
    expect(() => verifyManifestSignature({ bundle: garbled, publicKey: '', manifest, what: 'x' }, { trust })).toThrow(/^x: its signature does not verify: its certificate is not an X.509 certificate/);
    expect(() => verifyManifestSignature({ bundle: untimed, publicKey: '', manifest, what: 'x' })).toThrow(`x: its signature does not verify: it is signed by a certificate, and no trusted root is configured to verify it against; set ${KEY}`);
  });

  it('says which key names a trusted root it cannot use', async () => {
    await expect(trustedRootSource('root.json', KEY)()).rejects.toThrow(`${KEY}: root.json must be an absolute path`);
    await expect(trustedRootSource(join(dir, 'none.json'), KEY)()).rejects.toThrow(/cannot be read \(ENOENT\)$/);
    await expect(trustedRootSource(await write('bad.json', '{"tlogs": 3}'), KEY)()).rejects.toThrow(/is not a Sigstore trusted root/);
    await expect(trustedRootSource(undefined, KEY)()).resolves.toBeUndefined();
  });
});
