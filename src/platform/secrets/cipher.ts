import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';

/** The key that seals managed secrets, or why there is none (managed secret writes then answer 503 with it). */
export type SecretKey = { usable: true; key: Buffer } | { usable: false; problem: string };

const FORMAT = 1;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const BASE64_OF_32_BYTES = /^[A-Za-z0-9+/]{43}=$/;
const HOW = 'set it to a file holding the base64 of 32 random bytes (openssl rand -base64 32) and restart';

/**
 * Reads `secrets.keyFile`. A missing or malformed key does not stop the start: only storing secrets
 * needs it. The problem names the key and the file, never the file's content.
 */
export async function loadSecretKey(keyFile: string | undefined): Promise<SecretKey> {
  if (keyFile === undefined) return { usable: false, problem: `secrets.keyFile is not set; ${HOW}` };
  let text: string;
  try {
    text = (await readFile(keyFile, 'utf8')).trim();
  } catch (error) {
    const code = (error as { code?: string }).code ?? 'unreadable';
    return { usable: false, problem: `secrets.keyFile (${keyFile}) cannot be read (${code}); ${HOW}` };
  }
  if (!BASE64_OF_32_BYTES.test(text)) return { usable: false, problem: `secrets.keyFile (${keyFile}) does not hold the base64 of 32 bytes (44 characters ending in "="); ${HOW}` };
  return { usable: true, key: Buffer.from(text, 'base64') };
}

/**
 * AES-256-GCM with a fresh 96-bit IV per write and the secret's id as additional authenticated data,
 * so a sealed value copied onto another row does not open.
 */
export function seal(key: Buffer, id: string, value: string): Buffer {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(id, 'utf8'));
  const ciphertext = Buffer.concat([cipher.update(value, 'utf8'), cipher.final()]);
  return Buffer.concat([Buffer.from([FORMAT]), iv, cipher.getAuthTag(), ciphertext]);
}

/** The value sealed for `id`; throws when the key, the id or the bytes differ from those it was sealed with. */
export function open(key: Buffer, id: string, sealed: Uint8Array): string {
  const bytes = Buffer.from(sealed);
  if (bytes[0] !== FORMAT || bytes.length < 1 + IV_BYTES + TAG_BYTES) throw new Error('not a sealed managed secret');
  const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(1, 1 + IV_BYTES));
  decipher.setAAD(Buffer.from(id, 'utf8'));
  decipher.setAuthTag(bytes.subarray(1 + IV_BYTES, 1 + IV_BYTES + TAG_BYTES));
  return Buffer.concat([decipher.update(bytes.subarray(1 + IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
}
