import type { Kysely, Selectable } from 'kysely';
import type { PlatformDatabase } from '../db.js';
import type { AuditEventsTable } from './tables.js';

export type AuditRow = Selectable<AuditEventsTable>;

export interface NewAuditRow {
  id: string;
  occurred_at: Date;
  actor_kind: string;
  actor_issuer: string | null;
  actor_subject: string | null;
  actor_user_id: string | null;
  action: string;
  target_type: string;
  target_id: string | null;
  before: unknown;
  after: unknown;
  request_id: string | null;
}

export async function insertAuditEvent(db: Kysely<PlatformDatabase>, row: NewAuditRow): Promise<void> {
  await db
    .insertInto('audit_events')
    .values({ ...row, before: row.before === undefined ? null : JSON.stringify(row.before), after: row.after === undefined ? null : JSON.stringify(row.after) })
    .execute();
}

export interface AuditQuery {
  action?: string | undefined;
  targetType?: string | undefined;
  targetId?: string | undefined;
  actorSubject?: string | undefined;
  /** Keyset position: events strictly older than this (time, id). */
  after?: { time: Date; id: string } | undefined;
  limit: number;
}

export async function listAuditEvents(db: Kysely<PlatformDatabase>, query: AuditQuery) {
  let select = db.selectFrom('audit_events').selectAll();
  if (query.action !== undefined) select = select.where('action', '=', query.action);
  if (query.targetType !== undefined) select = select.where('target_type', '=', query.targetType);
  if (query.targetId !== undefined) select = select.where('target_id', '=', query.targetId);
  if (query.actorSubject !== undefined) select = select.where('actor_subject', '=', query.actorSubject);
  const after = query.after;
  if (after) select = select.where((eb) => eb.or([eb('occurred_at', '<', after.time), eb.and([eb('occurred_at', '=', after.time), eb('id', '<', after.id)])]));
  return select.orderBy('occurred_at', 'desc').orderBy('id', 'desc').limit(query.limit).execute();
}
