import { createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { exportJWK } from 'jose';
import { ConfigError } from '../../core/config/load.js';
import type { PlatformConfig } from '../config.js';
import type { PublicJwk } from './schemas.js';

export interface SigningKey {
  kid: string;
  privateKey: KeyObject;
  publicJwk: PublicJwk;
}

/** The platform's signing keys: the first signs, every one is published for verification. */
export interface SigningKeySet {
  active: SigningKey;
  keys: SigningKey[];
}

/**
 * Reads every key file at start. A file that cannot be read or is not an EC P-256 private key stops
 * the start, naming the key; no key material ever reaches a message or a log.
 */
export async function loadSigningKeys(signing: PlatformConfig['signing']): Promise<SigningKeySet | undefined> {
  if (!signing) return undefined;
  const problems: string[] = [];
  const keys: SigningKey[] = [];
  for (const [index, entry] of signing.keys.entries()) {
    const where = `signing.keys[${index}].privateKeyFile`;
    let pem: string;
    try {
      pem = readFileSync(entry.privateKeyFile, 'utf8');
    } catch (error) {
      problems.push(`${where}: cannot read ${entry.privateKeyFile} (${(error as NodeJS.ErrnoException).code ?? 'unreadable'})`);
      continue;
    }
    let privateKey: KeyObject;
    try {
      privateKey = createPrivateKey({ key: pem, format: 'pem' });
    } catch {
      problems.push(`${where}: ${entry.privateKeyFile} is not a PEM private key (expected an EC P-256 key in PKCS#8 PEM)`);
      continue;
    }
    if (privateKey.asymmetricKeyType !== 'ec' || privateKey.asymmetricKeyDetails?.namedCurve !== 'prime256v1') {
      problems.push(`${where}: ${entry.privateKeyFile} is not an EC P-256 private key (make one with: openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256)`);
      continue;
    }
    const { x, y } = await exportJWK(createPublicKey(privateKey));
    keys.push({ kid: entry.kid, privateKey, publicJwk: { kty: 'EC', crv: 'P-256', x: x ?? '', y: y ?? '', kid: entry.kid, alg: 'ES256', use: 'sig' } });
  }
  if (problems.length > 0) throw new ConfigError(problems);
  const [active] = keys;
  return active && { active, keys };
}
