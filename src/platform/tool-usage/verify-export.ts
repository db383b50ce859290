import { importJWK, type JWK } from 'jose';
import { readDetachedHeader, verifyDetached } from '../../core/signing/detached-jws.js';
import { checkpointPayload, GENESIS_HASH, HASH_ALG, recordHash, SIG_ALG } from './chain.js';
import { isJsonObject } from '../../core/json-object.js';

/* Offline verification of exported tool-call records (PLATFORM-API Part 4 §9, `toolyard platform verify-export`). */

export const BREAK_REASONS = ['record_hash_mismatch', 'prev_hash_mismatch', 'gap', 'duplicate_sequence', 'unknown_key', 'bad_signature', 'checkpoint_mismatch'] as const;
export type BreakReason = (typeof BREAK_REASONS)[number];

export type ChainVerdict =
  | { status: 'ok'; chain: string; first: number; last: number; signed_through: number }
  | { status: 'broken'; chain: string; sequence: number; record: string; reason: BreakReason };

interface ExportedRecord {
  chain_id: string;
  id: string;
  sequence: number;
  prev_hash: string;
  record_hash: string;
  usage: unknown;
}

interface ExportedCheckpoint {
  chain_id: string;
  sequence: number;
  chain_hash: string;
  hash_alg: string;
  sig_alg: string;
  key_id: string;
  signed_at: string;
  signature: string;
}

/** The input is not an export: exit 2. */
export class UnreadableExportError extends Error {}

const isSequence = (value: unknown): value is number => typeof value === 'number' && Number.isSafeInteger(value) && value >= 1;

function recordOf(value: unknown, where: string): ExportedRecord {
  if (!isJsonObject(value) || !isSequence(value.sequence) || !isJsonObject(value.usage) || !['chain_id', 'id', 'prev_hash', 'record_hash'].every((field) => typeof value[field] === 'string')) {
    throw new UnreadableExportError(`${where}: not an exported record (chain_id, id, sequence, prev_hash, record_hash, usage)`);
  }
  return value as unknown as ExportedRecord;
}

function checkpointOf(value: unknown, where: string): ExportedCheckpoint {
  const fields = ['chain_id', 'chain_hash', 'hash_alg', 'sig_alg', 'key_id', 'signed_at', 'signature'];
  if (!isJsonObject(value) || !isSequence(value.sequence) || !fields.every((field) => typeof value[field] === 'string')) {
    throw new UnreadableExportError(`${where}: not a checkpoint (${fields.join(', ')}, sequence)`);
  }
  return value as unknown as ExportedCheckpoint;
}

/** An export page `{records, checkpoints}`, or an array of them, as parsed JSON. */
export function readExport(document: unknown): { records: ExportedRecord[]; checkpoints: ExportedCheckpoint[] } {
  const pages = Array.isArray(document) ? document : [document];
  const records: ExportedRecord[] = [];
  const checkpoints: ExportedCheckpoint[] = [];
  pages.forEach((page: unknown, index) => {
    const where = Array.isArray(document) ? `page ${index}` : 'the page';
    if (!isJsonObject(page) || !Array.isArray(page.records) || !Array.isArray(page.checkpoints)) throw new UnreadableExportError(`${where}: not an export page (records and checkpoints)`);
    page.records.forEach((record, at) => records.push(recordOf(record, `${where}, records[${at}]`)));
    page.checkpoints.forEach((checkpoint, at) => checkpoints.push(checkpointOf(checkpoint, `${where}, checkpoints[${at}]`)));
  });
  return { records, checkpoints };
}

interface Failure {
  sequence: number;
  record: string;
  reason: BreakReason;
  /** At one sequence a record's failure is reported before a checkpoint's. */
  rank: number;
}

async function verifyCheckpoint(checkpoint: ExportedCheckpoint, keys: JWK[]): Promise<BreakReason | undefined> {
  const jwk = keys.find((key) => key.kid === checkpoint.key_id);
  if (!jwk) return 'unknown_key';
  const header = readDetachedHeader(checkpoint.signature);
  if (checkpoint.hash_alg !== HASH_ALG || checkpoint.sig_alg !== SIG_ALG || header?.alg !== SIG_ALG || header.kid !== checkpoint.key_id) return 'bad_signature';
  let key: Awaited<ReturnType<typeof importJWK>>;
  try {
    key = await importJWK(jwk, SIG_ALG);
  } catch {
    return 'bad_signature';
  }
  if (key instanceof Uint8Array) return 'bad_signature';
  const payload = checkpointPayload({ chain_hash: checkpoint.chain_hash, chain_id: checkpoint.chain_id, sequence: checkpoint.sequence, signed_at: checkpoint.signed_at });
  return (await verifyDetached(payload, checkpoint.signature, key)) ? undefined : 'bad_signature';
}

async function verifyChain(chain: string, records: ExportedRecord[], checkpoints: ExportedCheckpoint[], keys: JWK[], allowGaps: boolean): Promise<ChainVerdict> {
  const sorted = [...records].sort((left, right) => left.sequence - right.sequence);
  const failures: Failure[] = [];
  const fail = (sequence: number, record: string, reason: BreakReason, rank: number) => failures.push({ sequence, record, reason, rank });
  const bySequence = new Map<number, ExportedRecord>();
  sorted.forEach((record, index) => {
    if (recordHash(chain, record.sequence, record.prev_hash, record.usage) !== record.record_hash) fail(record.sequence, record.id, 'record_hash_mismatch', 0);
    const previous = sorted[index - 1];
    if (previous?.sequence === record.sequence) fail(record.sequence, record.id, 'duplicate_sequence', 0);
    else if (record.sequence === 1) {
      if (record.prev_hash !== GENESIS_HASH) fail(record.sequence, record.id, 'prev_hash_mismatch', 0);
    } else if (previous?.sequence === record.sequence - 1) {
      if (record.prev_hash !== previous.record_hash) fail(record.sequence, record.id, 'prev_hash_mismatch', 0);
    } else if (!allowGaps) fail(record.sequence, record.id, 'gap', 0);
    if (!bySequence.has(record.sequence)) bySequence.set(record.sequence, record);
  });
  let signedThrough = 0;
  for (const checkpoint of checkpoints) {
    const record = bySequence.get(checkpoint.sequence);
    const problem = (await verifyCheckpoint(checkpoint, keys)) ?? (record && record.record_hash !== checkpoint.chain_hash ? 'checkpoint_mismatch' : undefined);
    if (problem) fail(checkpoint.sequence, record?.id ?? '-', problem, 1);
    else signedThrough = Math.max(signedThrough, checkpoint.sequence);
  }
  const [lowest] = failures.sort((left, right) => left.sequence - right.sequence || left.rank - right.rank);
  if (lowest) return { status: 'broken', chain, sequence: lowest.sequence, record: lowest.record, reason: lowest.reason };
  return { status: 'ok', chain, first: sorted[0]?.sequence ?? 0, last: sorted.at(-1)?.sequence ?? 0, signed_through: signedThrough };
}

/** One verdict per chain in the export, in chain order. */
export async function verifyExport(document: unknown, keys: JWK[], options: { allowGaps: boolean }): Promise<ChainVerdict[]> {
  const { records, checkpoints } = readExport(document);
  const chains = [...new Set([...records.map((record) => record.chain_id), ...checkpoints.map((checkpoint) => checkpoint.chain_id)])].sort();
  const verdicts: ChainVerdict[] = [];
  for (const chain of chains) {
    verdicts.push(
      await verifyChain(
        chain,
        records.filter((record) => record.chain_id === chain),
        checkpoints.filter((checkpoint) => checkpoint.chain_id === chain),
        keys,
        options.allowGaps,
      ),
    );
  }
  return verdicts;
}

/** The line `verify-export` prints for a verdict. */
export function describeVerdict(verdict: ChainVerdict): string {
  return verdict.status === 'ok'
    ? `ok chain=${verdict.chain} records=${verdict.first}..${verdict.last} signed_through=${verdict.signed_through}`
    : `broken chain=${verdict.chain} sequence=${verdict.sequence} record=${verdict.record} reason=${verdict.reason}`;
}

/** The same fields as an object (`--json`). */
export function verdictObject(verdict: ChainVerdict): Record<string, unknown> {
  return verdict.status === 'ok'
    ? { status: 'ok', chain: verdict.chain, records: `${verdict.first}..${verdict.last}`, signed_through: verdict.signed_through }
    : { status: 'broken', chain: verdict.chain, sequence: verdict.sequence, record: verdict.record, reason: verdict.reason };
}
