import { createHash, createPublicKey, KeyObject, sign, webcrypto } from 'node:crypto';
// @peculiar/x509 resolves its algorithms through tsyringe, which needs the Reflect metadata API
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import { json } from '@sigstore/core';

x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);

const EC = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
export const RFC6962_LEAF = Buffer.from([0]);
const RFC6962_NODE = Buffer.from([1]);
export const sha256 = (...parts: Buffer[]): Buffer => parts.reduce((hash, part) => hash.update(part), createHash('sha256')).digest();

/** A DER UTF8String: how Fulcio encodes its extensions from 1.3.6.1.4.1.57264.1.8 on. */
function utf8String(text: string): ArrayBuffer {
  const bytes = Buffer.from(text, 'utf8');
  const length = bytes.length < 128 ? Buffer.from([bytes.length]) : Buffer.from([0x81, bytes.length]);
  return new Uint8Array(Buffer.concat([Buffer.from([0x0c]), length, bytes])).buffer;
}

/** Who a leaf certificate names, as Fulcio writes it: the SAN and its extensions. */
export interface LeafIdentity {
  email?: string;
  uri?: string;
  issuer: string;
  repositoryUri?: string;
  repositoryRef?: string;
  runnerEnvironment?: string;
}

export interface TestCa {
  uri: string;
  /** The CA certificate, DER. */
  certificate: Buffer;
  /** A leaf certificate (DER) for `publicKey`, valid from a minute ago for ten minutes, as Fulcio issues them. */
  issue: (publicKey: KeyObject, identity: LeafIdentity) => Promise<Buffer>;
}

/** A self-signed P-256 certificate authority standing in for Fulcio's. */
export async function createTestCa(name: string, uri: string): Promise<TestCa> {
  const keys = await webcrypto.subtle.generateKey(EC, true, ['sign', 'verify']);
  const now = Date.now();
  const ca = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: '01',
    name: `CN=${name}, O=toolyard-test`,
    notBefore: new Date(now - 3600_000),
    notAfter: new Date(now + 24 * 3600_000),
    signingAlgorithm: EC,
    keys,
    extensions: [
      new x509.BasicConstraintsExtension(true, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  let serial = 1;
  return {
    uri,
    certificate: Buffer.from(ca.rawData),
    issue: async (publicKey, identity) => {
      serial += 1;
      const extensions: x509.Extension[] = [
        new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
        new x509.ExtendedKeyUsageExtension(['1.3.6.1.5.5.7.3.3']),
        new x509.SubjectAlternativeNameExtension(identity.email !== undefined ? [{ type: 'email', value: identity.email }] : [{ type: 'url', value: identity.uri ?? '' }], true),
        await x509.AuthorityKeyIdentifierExtension.create(ca),
        new x509.Extension('1.3.6.1.4.1.57264.1.8', false, utf8String(identity.issuer)),
      ];
      for (const [oid, value] of [['1.3.6.1.4.1.57264.1.11', identity.runnerEnvironment], ['1.3.6.1.4.1.57264.1.12', identity.repositoryUri], ['1.3.6.1.4.1.57264.1.14', identity.repositoryRef]] as const) {
        if (value !== undefined) extensions.push(new x509.Extension(oid, false, utf8String(value)));
      }
      const leaf = await x509.X509CertificateGenerator.create({
        serialNumber: serial.toString(16).padStart(2, '0'),
        subject: 'CN=sigstore',
        issuer: ca.subject,
        notBefore: new Date(Date.now() - 60_000),
        notAfter: new Date(Date.now() + 600_000),
        signingAlgorithm: EC,
        publicKey: await webcrypto.subtle.importKey('spki', publicKey.export({ type: 'spki', format: 'der' }), EC, true, ['verify']),
        signingKey: keys.privateKey,
        extensions,
      });
      return Buffer.from(leaf.rawData);
    },
  };
}

/** Rekor's answer for one entry (`POST /api/v1/log/entries`): hex and base64 as Rekor writes them. */
export interface RekorEntry {
  body: string;
  integratedTime: number;
  logID: string;
  logIndex: number;
  verification: { signedEntryTimestamp: string; inclusionProof: { checkpoint: string; hashes: string[]; logIndex: number; rootHash: string; treeSize: number } };
}

export interface TestTlog {
  baseUrl: string;
  publicKey: KeyObject;
  logId: Buffer;
  /** Appends a canonicalized entry body; answers the entry with its SET and its inclusion proof in the log as it now is. */
  append: (body: Buffer) => RekorEntry;
}

/** The RFC 6962 Merkle tree hash of leaf hashes. */
function treeHash(leaves: Buffer[]): Buffer {
  if (leaves.length === 1) return leaves[0] ?? Buffer.alloc(0);
  const split = 2 ** Math.floor(Math.log2(leaves.length - 1));
  return sha256(RFC6962_NODE, treeHash(leaves.slice(0, split)), treeHash(leaves.slice(split)));
}

/** RFC 6962's PATH(m, D[n]), lowest level first. */
function inclusionPath(index: number, leaves: Buffer[]): Buffer[] {
  if (leaves.length <= 1) return [];
  const split = 2 ** Math.floor(Math.log2(leaves.length - 1));
  return index < split
    ? [...inclusionPath(index, leaves.slice(0, split)), treeHash(leaves.slice(split))]
    : [...inclusionPath(index - split, leaves.slice(split)), treeHash(leaves.slice(0, split))];
}

/** A transparency log in memory, signing its SETs and checkpoints with a key of its own. */
export function createTestTlog(baseUrl: string, signingKey: KeyObject): TestTlog {
  const publicKey = createPublicKey(signingKey);
  const logId = sha256(publicKey.export({ type: 'spki', format: 'der' }));
  const leaves: Buffer[] = [];
  const name = new URL(baseUrl).host;
  return {
    baseUrl,
    publicKey,
    logId,
    append: (body) => {
      leaves.push(sha256(RFC6962_LEAF, body));
      const logIndex = leaves.length - 1;
      const integratedTime = Math.floor(Date.now() / 1000);
      const promise = { body: body.toString('base64'), integratedTime, logIndex, logID: logId.toString('hex') };
      const root = treeHash(leaves);
      const note = `${name} - test\n${String(leaves.length)}\n${root.toString('base64')}\n`;
      const noteSignature = Buffer.concat([logId.subarray(0, 4), sign('sha256', Buffer.from(note), signingKey)]);
      return {
        body: promise.body,
        integratedTime,
        logID: promise.logID,
        logIndex,
        verification: {
          signedEntryTimestamp: sign('sha256', Buffer.from(json.canonicalize(promise)), signingKey).toString('base64'),
          inclusionProof: {
            checkpoint: `${note}\n\u2014 ${name} ${noteSignature.toString('base64')}\n`,
            hashes: inclusionPath(logIndex, leaves).map((hash) => hash.toString('hex')),
            logIndex,
            rootHash: root.toString('hex'),
            treeSize: leaves.length,
          },
        },
      };
    },
  };
}

/** A hashedrekord v0.0.1 body, canonicalized, as Rekor stores it for a message signature by a certificate. */
export function hashedrekordBody(input: { digest: Buffer; signature: Buffer; certificate: Buffer }): Buffer {
  const pem = new x509.X509Certificate(new Uint8Array(input.certificate)).toString('pem');
  return Buffer.from(
    json.canonicalize({
      apiVersion: '0.0.1',
      kind: 'hashedrekord',
      spec: { data: { hash: { algorithm: 'sha256', value: input.digest.toString('hex') } }, signature: { content: input.signature.toString('base64'), publicKey: { content: Buffer.from(pem).toString('base64') } } },
    }),
  );
}

/** A Rekor entry as a bundle's `tlogEntries` item (protobuf JSON). */
export function bundleTlogEntry(entry: RekorEntry): object {
  const proof = entry.verification.inclusionProof;
  return {
    logIndex: String(entry.logIndex),
    logId: { keyId: Buffer.from(entry.logID, 'hex').toString('base64') },
    kindVersion: { kind: 'hashedrekord', version: '0.0.1' },
    integratedTime: String(entry.integratedTime),
    inclusionPromise: { signedEntryTimestamp: entry.verification.signedEntryTimestamp },
    inclusionProof: {
      logIndex: String(proof.logIndex),
      rootHash: Buffer.from(proof.rootHash, 'hex').toString('base64'),
      treeSize: String(proof.treeSize),
      hashes: proof.hashes.map((hash) => Buffer.from(hash, 'hex').toString('base64')),
      checkpoint: { envelope: proof.checkpoint },
    },
    canonicalizedBody: entry.body,
  };
}

/** A v0.3 bundle: a message signature over `manifest` by `key`, its certificate, and its entry in `tlog` when one is given. */
export function certificateBundle(input: { manifest: Buffer; key: KeyObject; certificate: Buffer; tlog?: TestTlog }): object {
  const digest = sha256(input.manifest);
  const signature = sign('sha256', input.manifest, input.key);
  const entries = input.tlog === undefined ? [] : [bundleTlogEntry(input.tlog.append(hashedrekordBody({ digest, signature, certificate: input.certificate })))];
  return {
    mediaType: 'application/vnd.dev.sigstore.bundle.v0.3+json',
    verificationMaterial: { certificate: { rawBytes: input.certificate.toString('base64') }, tlogEntries: entries, timestampVerificationData: { rfc3161Timestamps: [] } },
    messageSignature: { messageDigest: { algorithm: 'SHA2_256', digest: digest.toString('base64') }, signature: signature.toString('base64') },
  };
}

/** A trusted_root.json (Sigstore's TrustedRoot, protobuf JSON) listing these CAs and transparency logs. */
export function trustedRootJson(input: { cas: TestCa[]; tlogs: TestTlog[] }): object {
  const start = new Date(Date.now() - 24 * 3600_000).toISOString();
  return {
    mediaType: 'application/vnd.dev.sigstore.trustedroot+json;version=0.1',
    tlogs: input.tlogs.map((tlog) => ({
      baseUrl: tlog.baseUrl,
      hashAlgorithm: 'SHA2_256',
      publicKey: { rawBytes: tlog.publicKey.export({ type: 'spki', format: 'der' }).toString('base64'), keyDetails: 'PKIX_ECDSA_P256_SHA_256', validFor: { start } },
      logId: { keyId: tlog.logId.toString('base64') },
    })),
    certificateAuthorities: input.cas.map((ca) => ({ subject: { organization: 'toolyard-test', commonName: ca.uri }, uri: ca.uri, certChain: { certificates: [{ rawBytes: ca.certificate.toString('base64') }] }, validFor: { start } })),
    ctlogs: [],
    timestampAuthorities: [],
  };
}
