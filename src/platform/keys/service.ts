import type { Kysely } from 'kysely';
import type { Clock } from '../../core/clock.js';
import type { ChangeFeed } from '../../core/db/change-feed.js';
import { InvalidInputError, NotFoundError } from '../../core/errors.js';
import { decodeListCursor, encodeListCursor } from '../../core/http/cursor.js';
import type { Ids } from '../../core/ids.js';
import type { AuditTrail } from '../audit/service.js';
import { TOPICS } from '../context.js';
import type { PlatformDatabase } from '../db.js';
import type { Actor } from '../identity/actor.js';
import type { IdentityResolver } from '../identity/resolver.js';
import { changeKeyState, type KeyAction } from './operations/change-key-state.js';
import { writeKey, type KeyWriteContext } from './operations/write-key.js';
import { presentKey } from './present.js';
import type { Key, KeyCreateBody, KeyList, KeyPage, KeysQuery, KeyStatus, KeyWithSecret } from './schemas.js';
import { generateSecret, hashSecret, prefixOf } from './secret.js';
import { findKey, insertKey, listKeysPage, listOwnKeys, nextChangeSeq, type KeyPosition, type KeyRow } from './store.js';

/** How long a rotated-out secret keeps working. */
export const ROTATION_GRACE_MS = 24 * 60 * 60 * 1000;
const DEFAULT_LIMIT = 50;
const MAX_LIMIT = 200;
const LIST = 'keys';

/** Own-data operations act on the caller's directory user; the others are the administrators' (see authz.ts). */
export interface KeyService {
  create(actor: Actor, body: KeyCreateBody): Promise<KeyWithSecret>;
  listOwn(actor: Actor, status: KeyStatus | undefined): Promise<KeyList>;
  getOwn(actor: Actor, id: string): Promise<Key>;
  changeOwn(actor: Actor, id: string, action: KeyAction): Promise<Key>;
  rotateOwn(actor: Actor, id: string): Promise<KeyWithSecret>;
  list(actor: Actor, query: KeysQuery): Promise<KeyPage>;
  get(actor: Actor, id: string): Promise<Key>;
  change(actor: Actor, id: string, action: KeyAction): Promise<Key>;
}

export interface KeyServiceOptions {
  db: Kysely<PlatformDatabase>;
  clock: Clock;
  ids: Ids;
  audit: AuditTrail;
  identity: IdentityResolver;
  changes: ChangeFeed;
  /** Runs after each committed key write, before the answer (this replica's verifier reads it at once). */
  afterWrite?: () => Promise<void>;
}

const positionOf = (row: KeyRow): string[] => [row.created_at.toISOString(), row.id];

function decodePosition(cursor: string, parameter: 'cursor' | 'before'): KeyPosition {
  const [time = '', id = ''] = decodeListCursor(cursor, LIST, 2, parameter);
  const createdAt = new Date(time);
  if (Number.isNaN(createdAt.getTime()) || !/^[0-9a-f-]{36}$/.test(id)) throw new InvalidInputError(`${parameter}: not a cursor of this list; start again without one`);
  return { createdAt, id };
}

export function createKeyService(options: KeyServiceOptions): KeyService {
  const { db, clock, identity, audit, changes } = options;
  const owner = async (actor: Actor) => (await identity.resolve(actor)).user.id;
  const writeContext = (actor: Actor, actorUserId: string | null): KeyWriteContext => ({ audit, changes, actor, actorUserId, now: clock.now() });
  /** A key write, then this replica's verifier brought up to date before the answer (the others follow the feed). */
  const write = async <T>(work: (trx: Kysely<PlatformDatabase>) => Promise<T>): Promise<T> => {
    const result = await db.transaction().execute(work);
    await options.afterWrite?.();
    return result;
  };

  const ownRow = async (actor: Actor, id: string): Promise<KeyRow> => {
    const [ownerRef, row] = await Promise.all([owner(actor), findKey(db, id)]);
    // another owner's key is as unknown as a missing one
    if (!row || row.owner_ref !== ownerRef) throw new NotFoundError(`no key with id ${id}`);
    return row;
  };

  const change = async (actor: Actor, id: string, action: KeyAction, ownerRef: string | undefined, actorUserId: string | null) => {
    const context = writeContext(actor, actorUserId);
    const row = await write((trx) => changeKeyState(trx, { id, action, owner: ownerRef }, context));
    return presentKey(row, context.now);
  };

  return {
    async create(actor, body) {
      const ownerRef = await owner(actor);
      const now = clock.now();
      const expiresAt = body.expires_at == null ? null : new Date(body.expires_at);
      if (expiresAt && expiresAt.getTime() <= now.getTime()) throw new InvalidInputError(`expires_at: must be in the future (now is ${now.toISOString()})`);
      const secret = generateSecret();
      const row = await write(async (trx) => {
        const created: KeyRow = {
          id: options.ids.uuid(),
          owner_ref: ownerRef,
          name: body.name,
          metadata: body.metadata ?? {},
          state: 'active',
          disabled_by_admin: false,
          secret_hash: hashSecret(secret),
          prefix: prefixOf(secret),
          previous_hash: null,
          previous_valid_until: null,
          expires_at: expiresAt,
          created_at: now,
          created_by: actor.subject,
          created_by_issuer: actor.issuer,
          last_used_at: null,
          change_seq: await nextChangeSeq(trx),
        };
        await insertKey(trx, { ...created, metadata: JSON.stringify(created.metadata) });
        await audit.record(trx, { actor, actorUserId: ownerRef, action: 'key.create', targetType: 'key', targetId: created.id, after: presentKey(created, now) });
        await changes.publish(trx as Kysely<unknown>, TOPICS.keys);
        return created;
      });
      return { key: presentKey(row, now), secret };
    },

    async listOwn(actor, status) {
      const rows = await listOwnKeys(db, await owner(actor), status, clock.now());
      const now = clock.now();
      return { keys: rows.map((row) => presentKey(row, now)) };
    },

    async getOwn(actor, id) {
      return presentKey(await ownRow(actor, id), clock.now());
    },

    async changeOwn(actor, id, action) {
      const ownerRef = await owner(actor);
      return change(actor, id, action, ownerRef, ownerRef);
    },

    async rotateOwn(actor, id) {
      const ownerRef = await owner(actor);
      const secret = generateSecret();
      const context = writeContext(actor, ownerRef);
      const row = await write(async (trx) => {
        const before = await findKey(trx, id, { lock: true });
        if (!before || before.owner_ref !== ownerRef) throw new NotFoundError(`no key with id ${id}`);
        // the replaced secret works for a day; an earlier grace secret ends now
        const patch = {
          secret_hash: hashSecret(secret),
          prefix: prefixOf(secret),
          previous_hash: before.secret_hash,
          previous_valid_until: new Date(context.now.getTime() + ROTATION_GRACE_MS),
        };
        return writeKey(trx, before, patch, 'key.rotate', context);
      });
      return { key: presentKey(row, context.now), secret };
    },

    async list(_actor, query) {
      if (query.cursor !== undefined && query.before !== undefined) throw new InvalidInputError('cursor and before: send one of them, not both');
      const limit = Math.min(query.limit ?? DEFAULT_LIMIT, MAX_LIMIT);
      const now = clock.now();
      const after = query.cursor === undefined ? undefined : decodePosition(query.cursor, 'cursor');
      const before = query.before === undefined ? undefined : decodePosition(query.before, 'before');
      const rows = await listKeysPage(db, { ownerRef: query.owner_ref, status: query.status, now, after, before, limit: limit + 1 });
      const more = rows.length > limit;
      const page = before ? rows.slice(0, limit).reverse() : rows.slice(0, limit);
      const first = page[0];
      const last = page.at(-1);
      // keys are never deleted: the row a cursor points at still exists, so there is a page on its other side
      const hasNext = before ? true : more;
      const hasPrev = before ? more : after !== undefined;
      return {
        keys: page.map((row) => presentKey(row, now)),
        ...(hasNext && last && { next_cursor: encodeListCursor(LIST, positionOf(last)) }),
        ...(hasPrev && first && { prev_cursor: encodeListCursor(LIST, positionOf(first)) }),
      };
    },

    async get(_actor, id) {
      const row = await findKey(db, id);
      if (!row) throw new NotFoundError(`no key with id ${id}`);
      return presentKey(row, clock.now());
    },

    async change(actor, id, action) {
      return change(actor, id, action, undefined, null);
    },
  };
}
