import { ForbiddenError } from '../../core/errors.js';
import type { LockEntry } from './lock.js';
import type { Provenance } from './references/resolver.js';

/** Content signed by someone other than the signer the lock file records (sync's `signer-mismatch`). */
export class SignerMismatchError extends ForbiddenError {}

/** Unsigned content over a lock entry that records a signer (sync's `unsigned-rejected`). */
export class UnsignedRejectedError extends ForbiddenError {}

/**
 * Who signed, as trust compares it: a certificate's identity counts only with the OIDC issuer that
 * vouched for it (as cosign's --certificate-identity with --certificate-oidc-issuer), since the same
 * email or URI may be claimed at another issuer. A key's fingerprint has no issuer.
 */
function signerOf(identity: unknown, issuer: unknown): string | undefined {
  if (typeof identity !== 'string' || identity === '') return undefined;
  return typeof issuer === 'string' && issuer !== '' ? `${identity} (issuer ${issuer})` : identity;
}

/** The signer a lock entry records, or undefined when it records none (unsigned, or nothing). */
export function recordedSigner(entry: LockEntry | undefined): string | undefined {
  return signerOf(entry?.provenance?.signerIdentity, entry?.provenance?.certIssuer);
}

/** The signer a verified signature names, or undefined for unsigned content. */
export function provenanceSigner(provenance: Provenance | null | undefined): string | undefined {
  return signerOf(provenance?.signer_identity, provenance?.cert_issuer);
}

export interface TrustOverrides {
  allowUnsigned?: boolean | undefined;
  /** An upgrade the caller allowed to change signer (clarification point 12). */
  allowSignerChange?: boolean | undefined;
}

/**
 * Clarification point 14: unsigned content installs, except over a lock entry that records a
 * signer (then only with `allow_unsigned`); content signed by someone else is refused.
 */
export function checkTrust(name: string, entry: LockEntry | undefined, fetched: { provenance: Provenance | null }, overrides: TrustOverrides = {}): void {
  const recorded = recordedSigner(entry);
  if (recorded === undefined || overrides.allowSignerChange === true) return;
  const signer = provenanceSigner(fetched.provenance);
  if (signer === undefined) {
    if (overrides.allowUnsigned !== true) throw new UnsignedRejectedError(`${name} is unsigned, but the lock file records it as signed by ${recorded}; pass allow_unsigned to install it anyway`);
    return;
  }
  if (signer !== recorded) throw new SignerMismatchError(`${name} is signed by ${signer}, but the lock file records ${recorded}`);
}
