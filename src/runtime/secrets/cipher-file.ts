import { createCipheriv, createDecipheriv, createHash, randomBytes, scrypt } from 'node:crypto';
import { SecretsDamagedError, SecretsLockedError } from './errors.js';

/**
 * The encrypted store's file: a JSON header (format, version, KDF and its parameters, cipher) and
 * the AES-256-GCM ciphertext of the whole secrets map. The header is the GCM additional data, so a
 * changed header fails authentication like a changed ciphertext.
 */
export interface ScryptParams {
  N: number;
  r: number;
  p: number;
}

export interface KdfHeader extends ScryptParams {
  name: 'scrypt';
  /** base64 of 16 random bytes, new for each password. */
  salt: string;
}

/** A Map, not an object, so that no key (`__proto__`) can reach a prototype. */
export type SecretsMap = Map<string, string>;

const FORMAT = 'toolyard-secrets';
const VERSION = 1;
const CIPHER = 'aes-256-gcm';
const IV_BYTES = 12;
const TAG_BYTES = 16;
const SALT_BYTES = 16;

/** 64 MiB and about a quarter of a second per derivation: slow for a guesser, paid once per process. */
export const DEFAULT_SCRYPT: ScryptParams = { N: 2 ** 16, r: 8, p: 1 };
/** Bounds on what a file may ask for, so a crafted header cannot make the reader allocate gigabytes. */
const LIMITS = { minN: 2 ** 10, maxN: 2 ** 20, maxR: 32, maxP: 16 };

export const newKdfHeader = (params: ScryptParams): KdfHeader => ({ name: 'scrypt', ...params, salt: randomBytes(SALT_BYTES).toString('base64') });

/** Derives AES keys, keeping each (salt, parameters, password) result for the life of the deriver. */
export interface KeyDeriver {
  derive: (password: string, kdf: KdfHeader) => Promise<Buffer>;
}

const MAX_CACHED_KEYS = 8;

export function createKeyDeriver(): KeyDeriver {
  const cache = new Map<string, Promise<Buffer>>();
  return {
    derive: (password, kdf) => {
      // the password is hashed for the cache key so the map holds no copy of it
      const id = `${kdf.salt}:${String(kdf.N)}:${String(kdf.r)}:${String(kdf.p)}:${createHash('sha256').update(password).digest('hex')}`;
      let key = cache.get(id);
      if (key === undefined) {
        key = new Promise<Buffer>((resolve, reject) => {
          const maxmem = 256 * kdf.N * kdf.r;
          scrypt(password, Buffer.from(kdf.salt, 'base64'), 32, { N: kdf.N, r: kdf.r, p: kdf.p, maxmem }, (error, derived) => {
            if (error) reject(error);
            else resolve(derived);
          });
        });
        // a few entries cover every real use; the bound keeps a stream of wrong guesses from growing it
        if (cache.size >= MAX_CACHED_KEYS) cache.delete(cache.keys().next().value ?? '');
        cache.set(id, key);
        key.catch(() => cache.delete(id));
      }
      return key;
    },
  };
}

/** The header fields in a fixed order: what GCM authenticates besides the ciphertext. */
const additionalData = (kdf: KdfHeader): Buffer =>
  Buffer.from(JSON.stringify({ format: FORMAT, version: VERSION, kdf: { name: kdf.name, N: kdf.N, r: kdf.r, p: kdf.p, salt: kdf.salt }, cipher: CIPHER }));

/** Encrypts the whole map with a fresh IV; the same key may encrypt many versions of the file. */
export function encryptStore(secrets: SecretsMap, kdf: KdfHeader, key: Buffer): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv(CIPHER, key, iv);
  cipher.setAAD(additionalData(kdf));
  const ciphertext = Buffer.concat([cipher.update(JSON.stringify({ secrets: Object.fromEntries(secrets) }), 'utf8'), cipher.final()]);
  const file = {
    format: FORMAT,
    version: VERSION,
    kdf,
    cipher: CIPHER,
    iv: iv.toString('base64'),
    tag: cipher.getAuthTag().toString('base64'),
    ciphertext: ciphertext.toString('base64'),
  };
  return `${JSON.stringify(file, null, 2)}\n`;
}

export interface StoreFile {
  kdf: KdfHeader;
  iv: Buffer;
  tag: Buffer;
  ciphertext: Buffer;
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

function base64Field(record: Record<string, unknown>, name: string, bytes?: number): Buffer {
  const value = record[name];
  if (typeof value !== 'string' || !/^[A-Za-z0-9+/]*={0,2}$/.test(value)) throw new SecretsDamagedError(`${name} is not base64`);
  const decoded = Buffer.from(value, 'base64');
  if (bytes !== undefined && decoded.length !== bytes) throw new SecretsDamagedError(`${name} must be ${String(bytes)} bytes`);
  return decoded;
}

function integerIn(record: Record<string, unknown>, name: string, min: number, max: number): number {
  const value = record[name];
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw new SecretsDamagedError(`kdf.${name} must be an integer from ${String(min)} to ${String(max)}`);
  }
  return value;
}

/** Checks the header without decrypting: everything here can be wrong without any password. */
export function parseStoreFile(text: string): StoreFile {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new SecretsDamagedError('not JSON');
  }
  if (!isRecord(parsed) || parsed.format !== FORMAT) throw new SecretsDamagedError('not a Toolyard secrets file');
  if (parsed.version !== VERSION) throw new SecretsDamagedError(`unsupported version ${typeof parsed.version === 'number' ? String(parsed.version) : 'none'}`);
  if (parsed.cipher !== CIPHER) throw new SecretsDamagedError(`unsupported cipher, expected ${CIPHER}`);
  const kdf = parsed.kdf;
  if (!isRecord(kdf) || kdf.name !== 'scrypt') throw new SecretsDamagedError('unsupported key derivation, expected scrypt');
  const N = integerIn(kdf, 'N', LIMITS.minN, LIMITS.maxN);
  if ((N & (N - 1)) !== 0) throw new SecretsDamagedError('kdf.N must be a power of two');
  base64Field(kdf, 'salt', SALT_BYTES);
  return {
    kdf: { name: 'scrypt', N, r: integerIn(kdf, 'r', 1, LIMITS.maxR), p: integerIn(kdf, 'p', 1, LIMITS.maxP), salt: kdf.salt as string },
    iv: base64Field(parsed, 'iv', IV_BYTES),
    tag: base64Field(parsed, 'tag', TAG_BYTES),
    ciphertext: base64Field(parsed, 'ciphertext'),
  };
}

/** Opens a parsed file; a failed authentication is a locked store, never an empty one. */
export function decryptStore(file: StoreFile, key: Buffer): SecretsMap {
  const decipher = createDecipheriv(CIPHER, key, file.iv);
  decipher.setAAD(additionalData(file.kdf));
  decipher.setAuthTag(file.tag);
  let plaintext: string;
  try {
    plaintext = Buffer.concat([decipher.update(file.ciphertext), decipher.final()]).toString('utf8');
  } catch {
    throw new SecretsLockedError();
  }
  let content: unknown;
  try {
    content = JSON.parse(plaintext);
  } catch {
    throw new SecretsDamagedError('the decrypted content is not JSON');
  }
  if (!isRecord(content) || !isRecord(content.secrets)) throw new SecretsDamagedError('the decrypted content has no secrets map');
  const secrets: SecretsMap = new Map();
  for (const [key, value] of Object.entries(content.secrets)) {
    if (typeof value !== 'string') throw new SecretsDamagedError('a decrypted secret is not a string');
    secrets.set(key, value);
  }
  return secrets;
}
