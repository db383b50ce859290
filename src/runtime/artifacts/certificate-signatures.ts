import { X509Certificate } from '@sigstore/core';
import type { Bundle } from '@sigstore/bundle';
import { toSignedEntity, Verifier } from '@sigstore/verify';
import type { Provenance } from './references/resolver.js';
import type { SigstoreTrust } from './trusted-root.js';

/** Fulcio's certificate extensions: https://github.com/sigstore/fulcio/blob/main/docs/oid-info.md */
const OID = {
  issuerV1: '1.3.6.1.4.1.57264.1.1',
  issuerV2: '1.3.6.1.4.1.57264.1.8',
  runnerEnvironment: '1.3.6.1.4.1.57264.1.11',
  sourceRepositoryUri: '1.3.6.1.4.1.57264.1.12',
  sourceRepositoryRef: '1.3.6.1.4.1.57264.1.14',
};

/** The leaf certificate of a bundle signed by a certificate (v0.3 `certificate`, or the first of an older bundle's chain), else undefined. */
export function leafCertificate(bundle: Bundle): X509Certificate | undefined {
  const content = bundle.verificationMaterial.content;
  if (content.$case === 'certificate') return X509Certificate.parse(Buffer.from(content.certificate.rawBytes));
  if (content.$case === 'x509CertificateChain') {
    const first = content.x509CertificateChain.certificates[0];
    return first === undefined ? undefined : X509Certificate.parse(Buffer.from(first.rawBytes));
  }
  return undefined;
}

/** A Fulcio extension's text: the first ones hold the raw string, those from .8 on a DER UTF8String. */
function extension(cert: X509Certificate, oid: string, der = true): string {
  const found = cert.extension(oid);
  if (found === undefined) return '';
  return (der ? found.valueObj.subs[0]?.value : found.value)?.toString('utf8') ?? '';
}

/**
 * Verifies a certificate bundle over the manifest against the trusted root: the leaf chains to one of
 * its CAs at a verified signing time, with the transparency log and SCT evidence the root asks for.
 * The signer is who the CA vouched for (the certificate's SAN), so the provenance is not provisional.
 */
export function verifyCertificateBundle(bundle: Bundle, manifest: Buffer, trust: SigstoreTrust, fail: (why: string) => Error): Provenance {
  const leaf = leafCertificate(bundle);
  if (leaf === undefined) throw fail('it holds no certificate');
  if (trust.material.tlogs.length === 0 && trust.material.timestampAuthorities.length === 0) {
    throw fail('the trusted root lists neither a transparency log nor a timestamp authority, so no signing time can be verified for its certificate');
  }
  try {
    new Verifier(trust.material, trust.thresholds).verify(toSignedEntity(bundle, manifest));
  } catch (error) {
    const cause = (error as { cause?: unknown }).cause;
    throw fail(cause instanceof Error ? `${(error as Error).message}: ${cause.message}` : (error as Error).message);
  }
  const authority = trust.authorities.find((ca) => ca.certificates.some((cert) => leaf.issuer.equals(cert.subject) && leaf.verify(cert)));
  return {
    cert_issuer: extension(leaf, OID.issuerV2) || extension(leaf, OID.issuerV1, false),
    provisional: false,
    public_key: '',
    repository_ref: extension(leaf, OID.sourceRepositoryRef),
    repository_uri: extension(leaf, OID.sourceRepositoryUri),
    runner_environment: extension(leaf, OID.runnerEnvironment),
    signer_identity: leaf.subjectAltName ?? '',
    sigstore_url: authority?.uri ?? '',
  };
}
