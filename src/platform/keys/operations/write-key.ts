import type { Kysely, Updateable } from 'kysely';
import type { AuditTrail } from '../../audit/service.js';
import { TOPICS } from '../../context.js';
import type { ChangeFeed } from '../../../core/db/change-feed.js';
import type { PlatformDatabase } from '../../db.js';
import type { Actor } from '../../identity/actor.js';
import { presentKey } from '../present.js';
import { nextChangeSeq, updateKey, type KeyRow } from '../store.js';
import type { VirtualKeysTable } from '../tables.js';

export interface KeyWriteContext {
  audit: AuditTrail;
  changes: ChangeFeed;
  actor: Actor;
  /** The actor's directory user, when the actor has one. */
  actorUserId: string | null;
  now: Date;
}

/**
 * Applies `patch` to a key locked in `trx`, audits it (before and after, never a secret) and tells every
 * replica through the change feed, all in the one transaction: a change nobody is told of cannot commit.
 */
export async function writeKey(trx: Kysely<PlatformDatabase>, before: KeyRow, patch: Updateable<VirtualKeysTable>, action: string, context: KeyWriteContext): Promise<KeyRow> {
  const change_seq = await nextChangeSeq(trx);
  await updateKey(trx, before.id, { ...patch, change_seq });
  const after = { ...before, ...patch, change_seq } as KeyRow;
  await context.audit.record(trx, {
    actor: context.actor,
    actorUserId: context.actorUserId,
    action,
    targetType: 'key',
    targetId: before.id,
    before: presentKey(before, context.now),
    after: presentKey(after, context.now),
  });
  await context.changes.publish(trx as Kysely<unknown>, TOPICS.keys);
  return after;
}
