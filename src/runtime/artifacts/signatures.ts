import { createHash, createPrivateKey, createPublicKey, sign, type KeyObject } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { isAbsolute } from 'node:path';
import { bundleFromJSON, bundleToJSON, isBundleWithMessageSignature, isBundleWithPublicKey, toMessageSignatureBundle } from '@sigstore/bundle';
import { toSignedEntity, Verifier, type TrustMaterial } from '@sigstore/verify';
import { InvalidInputError } from '../../core/errors.js';
import { configKey } from '../config.js';
import { leafCertificate, verifyCertificateBundle } from './certificate-signatures.js';
import type { Provenance } from './references/resolver.js';
import { SignatureInvalidError, type StoredSignature, type VerifyContext } from './signature-format.js';

/** A key's identity: the SHA-256 of its SubjectPublicKeyInfo DER, as `sha256:<hex>`. */
export function keyFingerprint(key: KeyObject): string {
  return `sha256:${createHash('sha256').update(key.export({ type: 'spki', format: 'der' })).digest('hex')}`;
}

/** Reads a PEM private key for signing; 400 for anything but an unencrypted ECDSA P-256 key. */
export async function loadSigningKey(path: string): Promise<KeyObject> {
  if (!isAbsolute(path)) throw new InvalidInputError(`key ${path} must be an absolute path to a PEM private key`);
  let pem: Buffer;
  try {
    pem = await readFile(path);
  } catch (error) {
    throw new InvalidInputError(`key ${path} cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  let key: KeyObject;
  try {
    key = createPrivateKey(pem);
  } catch {
    throw new InvalidInputError(`key ${path} is not an unencrypted PEM private key`);
  }
  // sigstore verifies message signatures with SHA-256 over the content, which Ed25519 does not take
  if (key.asymmetricKeyType !== 'ec' || key.asymmetricKeyDetails?.namedCurve !== 'prime256v1') {
    throw new InvalidInputError(`key ${path} is ${key.asymmetricKeyType ?? 'an unknown'} key; sign with an ECDSA P-256 key`);
  }
  return key;
}

/** A sigstore bundle (v0.3, message signature over the manifest, no transparency log) and the PEM public key that verifies it. */
export function signManifest(manifest: Buffer, key: KeyObject): { bundle: Buffer; publicKey: string } {
  const publicKey = createPublicKey(key);
  const bundle = toMessageSignatureBundle({
    digest: createHash('sha256').update(manifest).digest(),
    signature: sign('sha256', manifest, key),
    keyHint: keyFingerprint(publicKey),
    certificateChain: false,
  });
  return { bundle: Buffer.from(JSON.stringify(bundleToJSON(bundle))), publicKey: publicKey.export({ type: 'spki', format: 'pem' }).toString() };
}

/**
 * Verifies a bundle over the manifest bytes with sigstore's verifier, offline. A certificate bundle
 * verifies against the configured trusted root. A key bundle needs no transparency log or timestamp,
 * as none can be reached; its key comes with the artifact and no certificate anchors it, so the
 * provenance is `provisional`: what makes it trusted is the lock file recording this signer and
 * refusing any other afterwards.
 */
export function verifyManifestSignature(input: { bundle: unknown; publicKey: string; manifest: Buffer; what: string }, context: VerifyContext = {}): Provenance {
  const fail = (why: string): SignatureInvalidError => new SignatureInvalidError(`${input.what}: its signature does not verify: ${why}`);
  let bundle;
  try {
    bundle = bundleFromJSON(input.bundle);
  } catch (error) {
    throw fail(`not a sigstore bundle (${(error as Error).message})`);
  }
  if (!isBundleWithMessageSignature(bundle)) throw fail('only message signatures over the manifest are verified here');
  const signed = bundle.content.messageSignature.messageDigest.digest;
  if (!signed.equals(createHash('sha256').update(input.manifest).digest())) throw fail('it signs other content');
  let leaf;
  try {
    leaf = leafCertificate(bundle);
  } catch (error) {
    throw fail(`its certificate is not an X.509 certificate (${(error as Error).message})`);
  }
  if (leaf !== undefined) {
    if (context.trust === undefined) throw fail(`it is signed by a certificate, and no trusted root is configured to verify it against; set ${configKey('sigstore.trustedRoot')}`);
    return verifyCertificateBundle(bundle, input.manifest, context.trust, fail);
  }
  if (!isBundleWithPublicKey(bundle)) throw fail('it holds neither a public key hint nor a certificate');
  let key: KeyObject;
  try {
    key = createPublicKey(input.publicKey);
  } catch {
    throw fail('the public key given with it is not a PEM public key');
  }
  const identity = keyFingerprint(key);
  if (bundle.verificationMaterial.content.publicKey.hint !== identity) throw fail(`it names the key ${bundle.verificationMaterial.content.publicKey.hint}, not ${identity}`);
  const trust: TrustMaterial = {
    certificateAuthorities: [],
    timestampAuthorities: [],
    tlogs: [],
    ctlogs: [],
    publicKey: () => ({ publicKey: key, validFor: () => true }),
  };
  try {
    new Verifier(trust, { tlogThreshold: 0, ctlogThreshold: 0, timestampThreshold: 0 }).verify(toSignedEntity(bundle, input.manifest));
  } catch (error) {
    throw fail((error as Error).message);
  }
  return {
    cert_issuer: '',
    provisional: true,
    public_key: key.export({ type: 'spki', format: 'pem' }).toString(),
    repository_ref: '',
    repository_uri: '',
    runner_environment: '',
    signer_identity: identity,
    sigstore_url: '',
  };
}

/** Verifies a stored signature again against the pin it was recorded for (sync: nothing is contacted). */
export function verifyStoredSignature(stored: StoredSignature, digest: string, what: string, context: VerifyContext = {}): Provenance {
  const manifest = Buffer.from(stored.manifest, 'base64');
  if (`sha256:${createHash('sha256').update(manifest).digest('hex')}` !== digest) throw new SignatureInvalidError(`${what}: its stored signature is for other content than ${digest}`);
  return verifyManifestSignature({ bundle: stored.bundle, publicKey: stored.public_key, manifest, what }, context);
}
