import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Clock } from '../../core/clock.js';
import type { ChangeFeed } from '../../core/db/change-feed.js';
import { TOPICS } from '../context.js';
import type { PlatformDatabase } from '../db.js';
import { hashSecret, looksLikeSecret } from './secret.js';
import { inactiveUserIds, keysChangedSince, touchLastUsed, type KeyStateRow } from './store.js';

/** Who a valid key stands for: its id, its owner, and the token that created it (its charges carry it). */
export interface KeyPrincipal {
  keyId: string;
  ownerUserId: string;
  /** The creating token's OIDC subject and issuer. */
  subject: string;
  issuer: string | null;
}

/** The LLM gateway's refusal codes for a key (PLATFORM-API Part 3 §1.1, checks 2 and 3). */
export type KeyRefusal = 'invalid_api_key' | 'key_disabled' | 'key_revoked' | 'key_expired' | 'user_inactive';

export type KeyVerdict = { ok: true; principal: KeyPrincipal } | { ok: false; code: KeyRefusal };

export interface KeyVerifier {
  /** A hash and a map lookup: no database round trip. */
  verify(secret: string): KeyVerdict;
  /** Loads every key (before the first request), then follows the change feed. */
  load(): Promise<void>;
  /** Reads what changed now (after a write on this replica; tests); never rejects. */
  refresh(): Promise<void>;
}

export interface KeyVerifierOptions {
  db: Kysely<PlatformDatabase>;
  changes: ChangeFeed;
  clock: Clock;
  logger: Logger;
}

const MINUTE = 60_000;

/**
 * The in-memory read model of every key: secret hash → key. Each replica loads it once and then reads
 * only the keys written since the last change number it saw, whenever the change feed says keys (or
 * users, for deactivated owners) changed: a disable or revoke anywhere is refused here on the next
 * request after the notification.
 */
export function createKeyVerifier(options: KeyVerifierOptions): KeyVerifier {
  const { db, clock, logger } = options;
  const keys = new Map<string, KeyStateRow>();
  const byHash = new Map<string, string>();
  let inactiveOwners: ReadonlySet<string> = new Set();
  let seen = 0;
  const lastTouched = new Map<string, number>();
  let refreshing: Promise<void> | undefined;

  const apply = (row: KeyStateRow) => {
    const before = keys.get(row.id);
    if (before) {
      byHash.delete(before.secret_hash);
      if (before.previous_hash !== null) byHash.delete(before.previous_hash);
    }
    keys.set(row.id, row);
    byHash.set(row.secret_hash, row.id);
    if (row.previous_hash !== null) byHash.set(row.previous_hash, row.id);
    seen = Math.max(seen, row.change_seq);
  };

  const readKeys = async () => {
    for (const row of await keysChangedSince(db, seen)) apply(row);
  };
  const readOwners = async () => {
    inactiveOwners = new Set(await inactiveUserIds(db));
  };
  /** One read at a time; a read asked for during one runs after it. */
  const serial = (read: () => Promise<void>) => {
    const next = (refreshing ?? Promise.resolve()).then(read);
    refreshing = next.catch((error: unknown) => logger.warn({ err: error }, 'cannot read virtual keys'));
    return next;
  };

  const touch = (keyId: string, now: Date) => {
    const last = lastTouched.get(keyId);
    if (last !== undefined && now.getTime() - last < MINUTE) return;
    lastTouched.set(keyId, now.getTime());
    touchLastUsed(db, keyId, now).catch((error: unknown) => logger.warn({ err: error, keyId }, 'cannot note the last use of a key'));
  };

  options.changes.subscribe(TOPICS.keys, () => void serial(readKeys).catch(() => undefined));
  options.changes.subscribe(TOPICS.users, () => void serial(readOwners).catch(() => undefined));

  return {
    verify(secret) {
      if (!looksLikeSecret(secret)) return { ok: false, code: 'invalid_api_key' };
      const hash = hashSecret(secret);
      const id = byHash.get(hash);
      const key = id === undefined ? undefined : keys.get(id);
      if (!key) return { ok: false, code: 'invalid_api_key' };
      const now = clock.now();
      if (hash !== key.secret_hash && (key.previous_valid_until === null || key.previous_valid_until.getTime() <= now.getTime())) return { ok: false, code: 'invalid_api_key' };
      if (key.state === 'revoked') return { ok: false, code: 'key_revoked' };
      if (key.expires_at !== null && key.expires_at.getTime() <= now.getTime()) return { ok: false, code: 'key_expired' };
      if (key.state === 'disabled') return { ok: false, code: 'key_disabled' };
      if (inactiveOwners.has(key.owner_ref)) return { ok: false, code: 'user_inactive' };
      touch(key.id, now);
      return { ok: true, principal: { keyId: key.id, ownerUserId: key.owner_ref, subject: key.created_by, issuer: key.created_by_issuer } };
    },
    async load() {
      await serial(async () => {
        await readOwners();
        await readKeys();
      });
    },
    refresh() {
      // a failed read is logged and retried on the next change; it never fails the write that asked for it
      return serial(async () => {
        await readOwners();
        await readKeys();
      }).catch(() => undefined);
    },
  };
}
