import { createHash, randomBytes } from 'node:crypto';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** 62^43 > 2^256: 43 base62 digits hold 256 random bits. */
const DIGITS = 43;
export const SECRET_PREFIX = 'tyk_';
const SECRET_FORM = /^tyk_[0-9A-Za-z]{43}$/;

/** `tyk_` and 43 base62 characters encoding 256 random bits. */
export function generateSecret(): string {
  let value = BigInt(`0x${randomBytes(32).toString('hex')}`);
  let digits = '';
  for (let index = 0; index < DIGITS; index++) {
    digits = ALPHABET.charAt(Number(value % 62n)) + digits;
    value /= 62n;
  }
  return SECRET_PREFIX + digits;
}

/**
 * SHA-256 hex: the secret carries 256 random bits, so a fast hash is as safe as a slow one and lets
 * every request be checked in memory.
 */
export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

/** What a key's list shows of its secret: its first 12 characters. */
export const prefixOf = (secret: string): string => secret.slice(0, 12);

/** Whether a text has the form of a key secret (anything else cannot be one, and needs no hashing). */
export const looksLikeSecret = (text: string): boolean => SECRET_FORM.test(text);
