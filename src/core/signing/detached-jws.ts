import { CompactSign, compactVerify, decodeProtectedHeader, type CryptoKey, type KeyObject } from 'jose';

/*
 * JWS compact serialisation with a detached payload (RFC 7515 appendix F): `<header>..<signature>`,
 * header {alg: "ES256", kid}. The signature covers `b64url(header) + "." + b64url(payload)` as usual;
 * the payload travels beside it (the envelope, a usage checkpoint) instead of inside it.
 */

export async function signDetached(payload: string, key: KeyObject | CryptoKey, kid: string): Promise<string> {
  const compact = await new CompactSign(new TextEncoder().encode(payload)).setProtectedHeader({ alg: 'ES256', kid }).sign(key);
  const [header, , signature] = compact.split('.');
  return `${header ?? ''}..${signature ?? ''}`;
}

export interface DetachedHeader {
  alg: string;
  kid: string;
}

/** The protected header of a detached signature; undefined when it is not `<header>..<signature>` with alg and kid. */
export function readDetachedHeader(signature: string): DetachedHeader | undefined {
  const parts = signature.split('.');
  if (parts.length !== 3 || parts[1] !== '' || parts[0] === '' || parts[2] === '') return undefined;
  try {
    const header = decodeProtectedHeader(`${parts[0] ?? ''}.e30.${parts[2] ?? ''}`);
    if (typeof header.alg !== 'string' || typeof header.kid !== 'string' || header.kid === '') return undefined;
    return { alg: header.alg, kid: header.kid };
  } catch {
    return undefined;
  }
}

/** Whether `signature` (detached) signs `payload` with `key`, ES256 only. */
export async function verifyDetached(payload: string, signature: string, key: KeyObject | CryptoKey): Promise<boolean> {
  const [header, , sig] = signature.split('.');
  const compact = `${header ?? ''}.${Buffer.from(payload).toString('base64url')}.${sig ?? ''}`;
  try {
    await compactVerify(compact, key, { algorithms: ['ES256'] });
    return true;
  } catch {
    return false;
  }
}
