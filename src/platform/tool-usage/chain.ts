import { createHash } from 'node:crypto';
import { jcs } from '../../core/signing/jcs.js';

/* The hash chain and checkpoint payloads of PLATFORM-API Part 4 §9, shared by the recorder and verify-export. */

/** `prev_hash` of a chain's first record. */
export const GENESIS_HASH = '0'.repeat(64);
export const HASH_ALG = 'SHA-256';
export const SIG_ALG = 'ES256';

/**
 * Lower-case hex SHA-256 of JCS `{chain_id, sequence, prev_hash, usage}` (the record's own id is not hashed).
 * The members are written in JCS order, which lets `jcs` take its fast way when `usage`'s are too.
 */
export function recordHash(chainId: string, sequence: number, prevHash: string, usage: unknown): string {
  return createHash('sha256').update(jcs({ chain_id: chainId, prev_hash: prevHash, sequence, usage })).digest('hex');
}

/** The bytes a checkpoint's detached JWS signs. */
export function checkpointPayload(checkpoint: { chain_hash: string; chain_id: string; sequence: number; signed_at: string }): string {
  return jcs({ chain_hash: checkpoint.chain_hash, chain_id: checkpoint.chain_id, sequence: checkpoint.sequence, signed_at: checkpoint.signed_at });
}
