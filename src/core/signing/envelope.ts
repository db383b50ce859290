import { createHash } from 'node:crypto';
import { importJWK, type CryptoKey, type JWK, type KeyObject } from 'jose';
import { readDetachedHeader, signDetached, verifyDetached } from './detached-jws.js';
import { jcs } from './jcs.js';

/*
 * The signed enterprise configuration envelope: built by the platform, verified offline by the CLI and
 * the local runtime. One module for both sides, so what is signed and what is checked never drift.
 */

export interface Directive {
  enforcement: 'enforced' | 'default';
  value: unknown;
}

export interface DegradedMode {
  grace_period: string;
  message: string;
  policy: 'warn' | 'block_new';
}

/** E0: the envelope before its etag and signature. */
export interface UnsealedEnvelope {
  config: Record<string, Directive>;
  degraded_mode: DegradedMode;
  issued_at: string;
  not_after: string;
  refresh_interval: string;
  schema_version: '1';
}

export interface Envelope extends UnsealedEnvelope {
  etag: string;
  signature: string;
}

const MEMBERS = ['config', 'degraded_mode', 'etag', 'issued_at', 'not_after', 'refresh_interval', 'schema_version', 'signature'];
const FUTURE_SKEW_MS = 5 * 60 * 1000;

export const sha256Hex = (text: string): string => createHash('sha256').update(text).digest('hex');

/** `sha256:<hex>` of JCS(E0). */
export function envelopeEtag(unsealed: UnsealedEnvelope): string {
  return `sha256:${sha256Hex(jcs(unsealed))}`;
}

/** The body of a signed envelope: JCS(E0 + etag + signature). */
export async function sealEnvelope(unsealed: UnsealedEnvelope, key: KeyObject | CryptoKey, kid: string): Promise<{ body: string; etag: string }> {
  const etag = envelopeEtag(unsealed);
  const withEtag = { ...unsealed, etag };
  const signature = await signDetached(jcs(withEtag), key, kid);
  return { body: jcs({ ...withEtag, signature }), etag };
}

/** Where verification finds public keys by kid; `refresh` asks for a new copy (an unknown kid is refetched once). */
export interface JwksSource {
  keys(refresh: boolean): Promise<JWK[]>;
}

export type EnvelopeVerdict =
  | { status: 'valid'; envelope: Envelope; kid: string }
  | { status: 'expired'; envelope: Envelope; kid: string }
  | { status: 'invalid'; reason: string };

export interface VerifyEnvelopeOptions {
  jwks: JwksSource;
  now: Date;
  /** The `issued_at` of the envelope held before this one: an older one is a replay. */
  previousIssuedAt?: Date | undefined;
}

const invalid = (reason: string): EnvelopeVerdict => ({ status: 'invalid', reason });

function parse(input: unknown): Record<string, unknown> | string {
  let value: unknown = input;
  if (typeof input === 'string') {
    try {
      value = JSON.parse(input);
    } catch {
      return 'the envelope is not JSON';
    }
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'the envelope is not a JSON object';
  return value as Record<string, unknown>;
}

function time(value: unknown): Date | undefined {
  if (typeof value !== 'string') return undefined;
  const parsed = new Date(value);
  return Number.isNaN(parsed.getTime()) ? undefined : parsed;
}

/** The offline check of an envelope, in the contract's order: shape, signature header, key, signature, etag, times. */
/** `input`: the envelope's text, or its parsed JSON. */
export async function verifyEnvelope(input: unknown, options: VerifyEnvelopeOptions): Promise<EnvelopeVerdict> {
  const envelope = parse(input);
  if (typeof envelope === 'string') return invalid(envelope);
  const members = Object.keys(envelope).sort();
  if (members.length !== MEMBERS.length || members.some((member, index) => member !== MEMBERS[index])) {
    return invalid(`the envelope must have exactly the members ${MEMBERS.join(', ')} (it has ${members.join(', ') || 'none'})`);
  }
  if (envelope.schema_version !== '1') return invalid(`schema_version ${JSON.stringify(envelope.schema_version)} is not supported (this client reads "1")`);
  if (typeof envelope.signature !== 'string') return invalid('signature is not a string');
  const header = readDetachedHeader(envelope.signature);
  if (!header) return invalid('signature is not a detached JWS (<header>..<signature>) with a kid');
  if (header.alg !== 'ES256') return invalid(`signature algorithm ${header.alg} is not ES256`);

  let jwk = (await options.jwks.keys(false)).find((key) => key.kid === header.kid);
  jwk ??= (await options.jwks.keys(true)).find((key) => key.kid === header.kid);
  if (!jwk) return invalid(`no published key has the kid "${header.kid}"`);
  let key: CryptoKey | Uint8Array;
  try {
    key = await importJWK({ ...jwk, alg: 'ES256' }, 'ES256');
  } catch {
    return invalid(`the published key "${header.kid}" is not an ES256 key`);
  }
  const { signature, ...signed } = envelope;
  if (key instanceof Uint8Array || !(await verifyDetached(jcs(signed), signature, key))) return invalid('the signature does not verify: the envelope was altered or signed by another key');
  const { etag, ...unsealed } = signed;
  if (etag !== `sha256:${sha256Hex(jcs(unsealed))}`) return invalid('etag does not match the envelope content');

  const issuedAt = time(envelope.issued_at);
  const notAfter = time(envelope.not_after);
  if (!issuedAt || !notAfter) return invalid('issued_at and not_after must be RFC 3339 times');
  if (issuedAt.getTime() > options.now.getTime() + FUTURE_SKEW_MS) return invalid('issued_at is in the future (check this machine\'s clock)');
  if (options.previousIssuedAt && issuedAt.getTime() < options.previousIssuedAt.getTime()) return invalid('the envelope is older than the one already held (a replay)');
  const verified = envelope as unknown as Envelope;
  return { status: options.now.getTime() < notAfter.getTime() ? 'valid' : 'expired', envelope: verified, kid: header.kid };
}
