import { ForbiddenError } from '../../core/errors.js';
import type { LockEntry } from './lock.js';
import type { Provenance } from './references/resolver.js';

/** Content signed by someone other than the signer the lock file records (sync's `signer-mismatch`). */
export class SignerMismatchError extends ForbiddenError {}

/** Unsigned content over a lock entry that records a signer (sync's `unsigned-rejected`). */
export class UnsignedRejectedError extends ForbiddenError {}

/** The signer a lock entry records, or undefined when it records none (unsigned, or nothing). */
export function recordedSigner(entry: LockEntry | undefined): string | undefined {
  const identity = entry?.provenance?.signerIdentity;
  return typeof identity === 'string' && identity !== '' ? identity : undefined;
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
  const signer = fetched.provenance?.signer_identity;
  if (signer === undefined) {
    if (overrides.allowUnsigned !== true) throw new UnsignedRejectedError(`${name} is unsigned, but the lock file records it as signed by ${recorded}; pass allow_unsigned to install it anyway`);
    return;
  }
  if (signer !== recorded) throw new SignerMismatchError(`${name} is signed by ${signer}, but the lock file records ${recorded}`);
}
