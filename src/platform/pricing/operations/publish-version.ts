import type { Kysely } from 'kysely';
import type { ChangeFeed } from '../../../core/db/change-feed.js';
import type { AuditTrail } from '../../audit/service.js';
import { TOPICS } from '../../context.js';
import type { PlatformDatabase } from '../../db.js';
import type { Actor } from '../../identity/actor.js';
import { presentCatalog } from '../present.js';
import { insertVersion, optOutOfBaselines, type VersionRow } from '../store.js';

export interface PublishContext {
  audit: AuditTrail;
  changes: ChangeFeed;
  actor: Actor;
  action: string;
  /** What the audit record names as changed (an entry, or the whole catalog). */
  target: { type: string; id: string; before: unknown; after: unknown };
}

/**
 * Publishes an operator's version inside `trx` (which holds the pricing lock): the version, the opt-out of
 * baselines, the audit record and the change-feed news commit together or not at all.
 */
export async function publishOperatorVersion(trx: Kysely<PlatformDatabase>, version: VersionRow, context: PublishContext): Promise<void> {
  await insertVersion(trx, version);
  await optOutOfBaselines(trx, version.created_at);
  await context.audit.record(trx, {
    actor: context.actor,
    action: context.action,
    targetType: context.target.type,
    targetId: context.target.id,
    before: context.target.before,
    after: context.target.after ?? presentCatalog(version),
  });
  await context.changes.publish(trx as Kysely<unknown>, TOPICS.pricing);
}
