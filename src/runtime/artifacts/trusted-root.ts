import { readFile } from 'node:fs/promises';
import { isAbsolute } from 'node:path';
import type { X509Certificate } from '@sigstore/core';
import type { TrustedRoot } from '@sigstore/protobuf-specs';
import type { TrustMaterial, VerifierOptions } from '@sigstore/verify';
import { InvalidInputError } from '../../core/errors.js';

/** What certificate bundles are verified against: the trusted root's material, its CAs' URIs and how much evidence it can ask for. */
export interface SigstoreTrust {
  material: TrustMaterial;
  /** Each certificate authority's URI (the provenance's `sigstore_url`) beside its certificates. */
  authorities: { uri: string; certificates: X509Certificate[] }[];
  thresholds: Required<Pick<VerifierOptions, 'tlogThreshold' | 'ctlogThreshold' | 'timestampThreshold'>>;
}

/** Reads the trusted root once, when a certificate bundle first needs it; undefined when none is configured. */
export type TrustSource = () => Promise<SigstoreTrust | undefined>;

/**
 * Thresholds follow what the root lists: a transparency log listed means an entry in it (with its
 * inclusion proof) is required, a CT log listed means an SCT from it. One verified signing time is
 * always required: the verifier checks the certificate chain at the signing times it verified, and a
 * short-lived Fulcio certificate has expired long before anyone installs what it signed.
 */
async function toTrust(root: TrustedRoot): Promise<SigstoreTrust> {
  const [{ X509Certificate }, { toTrustMaterial }] = await Promise.all([import('@sigstore/core'), import('@sigstore/verify')]);
  return {
    material: toTrustMaterial(root),
    authorities: root.certificateAuthorities.map((ca) => ({ uri: ca.uri, certificates: (ca.certChain?.certificates ?? []).map((cert) => X509Certificate.parse(Buffer.from(cert.rawBytes))) })),
    thresholds: { tlogThreshold: root.tlogs.length > 0 ? 1 : 0, ctlogThreshold: root.ctlogs.length > 0 ? 1 : 0, timestampThreshold: 1 },
  };
}

/** A source reading the trusted root at `path` (named `key` in messages) once; every read after a failure tries again. */
export function trustedRootSource(path: string | undefined, key: string): TrustSource {
  let loaded: Promise<SigstoreTrust> | undefined;
  const load = async (file: string): Promise<SigstoreTrust> => {
    const bad = (why: string) => new InvalidInputError(`${key}: ${file} ${why}`);
    if (!isAbsolute(file)) throw bad('must be an absolute path');
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (error) {
      throw bad(`cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
    }
    try {
      // sigstore is loaded by the first verification that needs the root, not by every command
      const { TrustedRoot } = await import('@sigstore/protobuf-specs');
      const root = TrustedRoot.fromJSON(JSON.parse(text));
      if (root.certificateAuthorities.length === 0) throw new Error('it lists no certificate authority');
      return await toTrust(root);
    } catch (error) {
      throw bad(`is not a Sigstore trusted root: ${(error as Error).message}`);
    }
  };
  return async () => {
    if (path === undefined) return undefined;
    loaded ??= load(path).catch((error: unknown) => {
      loaded = undefined;
      throw error;
    });
    return loaded;
  };
}
