import { ForbiddenError } from '../../core/errors.js';
import type { LockEntry } from './lock.js';
import type { Provenance } from './references/resolver.js';

/** The signer a lock entry records, or undefined when it records none (unsigned, or nothing). */
export function recordedSigner(entry: LockEntry | undefined): string | undefined {
  const identity = entry?.provenance?.signerIdentity;
  return typeof identity === 'string' && identity !== '' ? identity : undefined;
}

/**
 * Clarification point 14: unsigned content installs, except over a lock entry that records a
 * signer (then only with `allow_unsigned`); content signed by someone else is refused.
 */
export function checkTrust(name: string, entry: LockEntry | undefined, fetched: { provenance: Provenance | null }, allowUnsigned: boolean): void {
  const recorded = recordedSigner(entry);
  if (recorded === undefined) return;
  const signer = fetched.provenance?.signer_identity;
  if (signer === undefined) {
    if (!allowUnsigned) throw new ForbiddenError(`${name} is unsigned, but the lock file records it as signed by ${recorded}; pass allow_unsigned to install it anyway`);
    return;
  }
  if (signer !== recorded) throw new ForbiddenError(`${name} is signed by ${signer}, but the lock file records ${recorded}`);
}
