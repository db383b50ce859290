import { DomainError } from '../../core/errors.js';
import type { SigstoreTrust } from './trusted-root.js';

/*
 * What the signature code shares with its callers. It lives apart from signatures.ts, which loads sigstore:
 * a command that only reads what is installed never pays for loading it.
 */

/** The artifact type (and layer media type) of a sigstore bundle attached to a manifest: @sigstore/bundle's BUNDLE_V03_MEDIA_TYPE. */
export const BUNDLE_ARTIFACT_TYPE = 'application/vnd.dev.sigstore.bundle.v0.3+json';
/** A v0.3 bundle signed by a key names it by a hint only: the key itself travels in this annotation of the bundle's manifest. */
export const PUBLIC_KEY_ANNOTATION = 'dev.toolyard.signature.public-key';

/** A signature that does not verify: the content is refused (400; sync and upgrade say `signature-invalid`). */
export class SignatureInvalidError extends DomainError {
  constructor(message: string) {
    super(message, 400);
  }
}

/** What an install keeps of a verified signature, enough to verify it again with nothing contacted. */
export interface StoredSignature {
  bundle: unknown;
  public_key: string;
  /** The signed manifest, base64: a message signature verifies over the bytes, not their digest. */
  manifest: string;
}

/** What verifies a signature: the trusted root, when one is configured (certificate bundles need it). */
export interface VerifyContext {
  trust?: SigstoreTrust | undefined;
}

