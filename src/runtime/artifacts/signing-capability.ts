import { randomBytes, timingSafeEqual } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ForbiddenError } from '../../core/errors.js';
import { writeFileAtomic } from '../state/files.js';

export const SIGNING_CAPABILITY_FILE = 'signing-capability';
export const SIGNING_CAPABILITY_HEADER = 'x-service-key-signing-capability';

/**
 * Written afresh each time the runtime starts, readable by its user only: signing with a key file
 * on this machine is then open to that user's own programs, not to anything that can merely reach the API.
 */
export async function writeSigningCapability(stateDir: string): Promise<string> {
  const value = randomBytes(32).toString('hex');
  await writeFileAtomic(join(stateDir, SIGNING_CAPABILITY_FILE), value, 0o600);
  return value;
}

/** The value the runtime wrote at start, or undefined when it has not started yet. */
export async function readSigningCapability(stateDir: string): Promise<string | undefined> {
  try {
    return (await readFile(join(stateDir, SIGNING_CAPABILITY_FILE), 'utf8')).trim();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** Refuses (403) a key signing whose capability is missing or is not the one the runtime wrote. */
export async function checkSigningCapability(stateDir: string, presented: string | undefined): Promise<void> {
  const expected = await readSigningCapability(stateDir);
  const given = Buffer.from(presented ?? '');
  const same = expected !== undefined && expected !== '' && given.length === Buffer.byteLength(expected) && timingSafeEqual(given, Buffer.from(expected));
  if (!same) {
    throw new ForbiddenError(`signing with a key needs the header X-Service-Key-Signing-Capability holding the value the runtime wrote to ${join(stateDir, SIGNING_CAPABILITY_FILE)}`);
  }
}
