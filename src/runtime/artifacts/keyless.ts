import type { InternalError } from '@sigstore/sign';
import { BadGatewayError, ForbiddenError, InvalidInputError, NotImplementedError } from '../../core/errors.js';
import { configKey } from '../config.js';

/** Signs with a certificate Fulcio issues for an identity token: the keyless signing of push with `identity_token`. */
export interface KeylessSigner {
  /** A v0.3 sigstore bundle (JSON bytes) signing `manifest`, its certificate and its Rekor entry. */
  sign: (manifest: Buffer, identityToken: string) => Promise<Buffer>;
}

/** Fulcio and Rekor are asked once: a failed push is pushed again by the person who asked. */
const FETCH = { retry: 0, timeout: 30_000 };

/** Says what went wrong upstream without the token, which sigstore's own messages may quote. */
function upstreamError(error: unknown, internal: typeof InternalError, urls: { fulcioUrl: string; rekorUrl: string }): Error {
  if (!(error instanceof internal)) return error as Error;
  const cause = error.cause as { statusCode?: unknown; message?: string } | undefined;
  const status = cause?.statusCode;
  // sigstore's HTTP errors start with their status in parentheses, said here once
  const detail = (cause?.message ?? error.message).replace(/^\(\d+\) /, '');
  const answered = typeof status === 'number' ? `answered HTTP ${String(status)}: ${detail}` : `could not be reached (${detail})`;
  switch (error.code) {
    case 'IDENTITY_TOKEN_PARSE_ERROR':
      return new InvalidInputError('identity_token is not an OIDC identity token (a JWT with a verified email or a sub claim)');
    case 'CA_CREATE_SIGNING_CERTIFICATE_ERROR':
      if (status === 400 || status === 401 || status === 403) return new ForbiddenError(`Fulcio at ${urls.fulcioUrl} refused the identity token (HTTP ${String(status)}): ${detail}`);
      return new BadGatewayError(`Fulcio at ${urls.fulcioUrl} ${answered}`);
    default:
      return new BadGatewayError(`Rekor at ${urls.rekorUrl} ${answered}`);
  }
}

/**
 * Both services are required: Rekor's entry carries the signing time (its integrated time, under a
 * signed promise) that a verifier checks the short-lived certificate against; a bundle without one
 * would be refused by every verifier, this runtime's included.
 */
export function keylessSigner(config: { fulcioUrl?: string | undefined; rekorUrl?: string | undefined }): KeylessSigner {
  return {
    sign: async (manifest, identityToken) => {
      const { fulcioUrl, rekorUrl } = config;
      if (fulcioUrl === undefined || rekorUrl === undefined) {
        throw new NotImplementedError(
          `keyless signing with identity_token needs a Fulcio and a Rekor: set ${configKey('sigstore.fulcioUrl')} and ${configKey('sigstore.rekorUrl')}; or sign with key, or push with no_sign: true`,
        );
      }
      // sigstore's signing stack (and its HTTP client) is loaded by the first push that signs, not by every command
      const [{ bundleToJSON }, { FulcioSigner, InternalError, MessageSignatureBundleBuilder, RekorWitness }] = await Promise.all([import('@sigstore/bundle'), import('@sigstore/sign')]);
      const signer = new FulcioSigner({ fulcioBaseURL: fulcioUrl, identityProvider: { getToken: () => Promise.resolve(identityToken) }, ...FETCH });
      const builder = new MessageSignatureBundleBuilder({ signer, witnesses: [new RekorWitness({ rekorBaseURL: rekorUrl, ...FETCH })] });
      try {
        return Buffer.from(JSON.stringify(bundleToJSON(await builder.create({ data: manifest }))));
      } catch (error) {
        throw upstreamError(error, InternalError, { fulcioUrl, rekorUrl });
      }
    },
  };
}
