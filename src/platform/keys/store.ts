import { sql, type ExpressionBuilder, type Insertable, type Kysely, type Selectable, type Updateable } from 'kysely';
import type { PlatformDatabase } from '../db.js';
import type { KeyStatus } from './schemas.js';
import type { VirtualKeysTable } from './tables.js';

export type KeyRow = Selectable<VirtualKeysTable>;
type Db = Kysely<PlatformDatabase>;

/** Any fixed number: the advisory lock that puts key writes in one order (see nextChangeSeq). */
const KEY_WRITES_LOCK = 7_411_002;

/**
 * The change number of a key write. Writers take it under one transaction-scoped lock, so they commit in
 * the order of their numbers and a replica that read up to N never later finds a lower number committed.
 * Key writes are people's actions, rare enough to take turns.
 */
export async function nextChangeSeq(trx: Db): Promise<number> {
  await sql`select pg_advisory_xact_lock(${KEY_WRITES_LOCK})`.execute(trx);
  const { rows } = await sql<{ seq: number }>`select nextval('virtual_keys_change_seq') as seq`.execute(trx);
  return Number(rows[0]?.seq);
}

export async function insertKey(trx: Db, row: Insertable<VirtualKeysTable>): Promise<void> {
  await trx.insertInto('virtual_keys').values(row).execute();
}

export async function findKey(db: Db, id: string, options: { lock?: boolean } = {}): Promise<KeyRow | undefined> {
  let query = db.selectFrom('virtual_keys').selectAll().where('id', '=', id);
  if (options.lock) query = query.forUpdate();
  return query.executeTakeFirst();
}

export async function updateKey(trx: Db, id: string, patch: Updateable<VirtualKeysTable>): Promise<void> {
  const { metadata, ...rest } = patch;
  await trx
    .updateTable('virtual_keys')
    .set({ ...rest, ...(metadata !== undefined && { metadata: JSON.stringify(metadata) }) })
    .where('id', '=', id)
    .execute();
}

/** The rows a status filter selects at `now` (expired is computed; revoked wins over expired, expired over disabled). */
function hasStatus(status: KeyStatus, now: Date) {
  return (eb: ExpressionBuilder<PlatformDatabase, 'virtual_keys'>) => {
    const unexpired = eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]);
    switch (status) {
      case 'revoked':
        return eb('state', '=', 'revoked');
      case 'expired':
        return eb.and([eb('state', '!=', 'revoked'), eb('expires_at', '<=', now)]);
      default:
        return eb.and([eb('state', '=', status), unexpired]);
    }
  };
}

export async function listOwnKeys(db: Db, ownerRef: string, status: KeyStatus | undefined, now: Date): Promise<KeyRow[]> {
  let query = db.selectFrom('virtual_keys').selectAll().where('owner_ref', '=', ownerRef);
  if (status) query = query.where(hasStatus(status, now));
  return query.orderBy('created_at', 'desc').orderBy('id', 'desc').execute();
}

export interface KeyPosition {
  createdAt: Date;
  id: string;
}

export interface KeyPageQuery {
  ownerRef?: string | undefined;
  status?: KeyStatus | undefined;
  now: Date;
  /** Rows after this position (older), newest first. */
  after?: KeyPosition | undefined;
  /** Rows before this position (newer), returned nearest first: oldest of them first. */
  before?: KeyPosition | undefined;
  limit: number;
}

export async function listKeysPage(db: Db, page: KeyPageQuery): Promise<KeyRow[]> {
  let query = db.selectFrom('virtual_keys').selectAll();
  if (page.ownerRef !== undefined) query = query.where('owner_ref', '=', page.ownerRef);
  if (page.status) query = query.where(hasStatus(page.status, page.now));
  if (page.before) {
    const { createdAt, id } = page.before;
    return query
      .where((eb) => eb.or([eb('created_at', '>', createdAt), eb.and([eb('created_at', '=', createdAt), eb('id', '>', id)])]))
      .orderBy('created_at', 'asc')
      .orderBy('id', 'asc')
      .limit(page.limit)
      .execute();
  }
  if (page.after) {
    const { createdAt, id } = page.after;
    query = query.where((eb) => eb.or([eb('created_at', '<', createdAt), eb.and([eb('created_at', '=', createdAt), eb('id', '<', id)])]));
  }
  return query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(page.limit).execute();
}

/** An owner's keys that are not revoked yet, locked (a deleted user's keys are revoked). */
export async function unrevokedKeysOfOwner(trx: Db, ownerRef: string): Promise<KeyRow[]> {
  return trx.selectFrom('virtual_keys').selectAll().where('owner_ref', '=', ownerRef).where('state', '!=', 'revoked').orderBy('id').forUpdate().execute();
}

/** What the verifier keeps of a key. */
export type KeyStateRow = Pick<KeyRow, 'id' | 'owner_ref' | 'state' | 'secret_hash' | 'previous_hash' | 'previous_valid_until' | 'expires_at' | 'created_by' | 'created_by_issuer' | 'change_seq'>;

/** Keys written after change number `since`, in change order. */
export async function keysChangedSince(db: Db, since: number): Promise<KeyStateRow[]> {
  return db
    .selectFrom('virtual_keys')
    .select(['id', 'owner_ref', 'state', 'secret_hash', 'previous_hash', 'previous_valid_until', 'expires_at', 'created_by', 'created_by_issuer', 'change_seq'])
    .where('change_seq', '>', since)
    .orderBy('change_seq')
    .execute();
}

/** Directory users who may not use their keys: deactivated ones. */
export async function inactiveUserIds(db: Db): Promise<string[]> {
  const rows = await db.selectFrom('users').select('id').where('active', '=', false).execute();
  return rows.map((row) => row.id);
}

/** Notes a use, at most once a minute per key across every replica (the condition is the guard). */
export async function touchLastUsed(db: Db, id: string, now: Date): Promise<void> {
  await db
    .updateTable('virtual_keys')
    .set({ last_used_at: now })
    .where('id', '=', id)
    .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<=', new Date(now.getTime() - 60_000))]))
    .execute();
}
