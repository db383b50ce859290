import { closeSync, openSync, writeSync } from 'node:fs';
import type { Kysely } from 'kysely';
import type { Clock } from '../../core/clock.js';
import { InvalidInputError } from '../../core/errors.js';
import { decodeListCursor, encodeListCursor } from '../../core/http/cursor.js';
import type { Ids } from '../../core/ids.js';
import type { PlatformDatabase } from '../db.js';
import type { Actor } from '../identity/actor.js';
import type { AuditEvent, AuditQueryParams } from './schemas.js';
import { insertAuditEvent, listAuditEvents, type AuditRow } from './store.js';

export interface AuditEntry {
  actor: Actor;
  /** The actor's directory user, when known. */
  actorUserId?: string | null;
  action: string;
  targetType: string;
  targetId: string | null;
  before?: unknown;
  after?: unknown;
}

/** The audit trail: written in the transaction of the write it describes, so neither exists without the other. */
export interface AuditTrail {
  record(trx: Kysely<PlatformDatabase>, entry: AuditEntry): Promise<void>;
  /** The records, newest first; the actor is checked by the authorization wrapper. */
  list(actor: Actor, query: AuditQueryParams): Promise<{ events: AuditEvent[]; next_cursor?: string }>;
  close(): void;
}

export interface AuditTrailOptions {
  db: Kysely<PlatformDatabase>;
  clock: Clock;
  ids: Ids;
  /** A JSON-lines copy of every record is appended here. */
  file?: string | undefined;
}

const SECRET_KEY = /secret|password|token|private|^key_hash$|^hash$/i;

/** Records describe the public shape of a resource; this is the second line of defence against a secret in one. */
function withoutSecrets(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutSecrets);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) => [key, SECRET_KEY.test(key) && typeof item === 'string' ? '[redacted]' : withoutSecrets(item)]),
  );
}

function present(row: AuditRow): AuditEvent {
  return {
    id: row.id,
    occurred_at: row.occurred_at.toISOString(),
    actor: { kind: row.actor_kind, issuer: row.actor_issuer, subject: row.actor_subject, user_id: row.actor_user_id },
    action: row.action,
    target: { type: row.target_type, id: row.target_id },
    before: row.before ?? null,
    after: row.after ?? null,
    request_id: row.request_id,
  };
}

export function createAuditTrail(options: AuditTrailOptions): AuditTrail {
  const fd = options.file === undefined ? undefined : openSync(options.file, 'a', 0o600);
  return {
    async record(trx, entry) {
      const row = {
        id: options.ids.uuid(),
        occurred_at: options.clock.now(),
        actor_kind: entry.actor.kind,
        actor_issuer: entry.actor.issuer,
        actor_subject: entry.actor.subject,
        actor_user_id: entry.actorUserId ?? null,
        action: entry.action,
        target_type: entry.targetType,
        target_id: entry.targetId,
        before: withoutSecrets(entry.before ?? null),
        after: withoutSecrets(entry.after ?? null),
        request_id: entry.actor.requestId,
      };
      await insertAuditEvent(trx, row);
      // one write call a line (O_APPEND): no record split by another writer; the database copy is the record of truth
      if (fd !== undefined) writeSync(fd, `${JSON.stringify({ ...row, occurred_at: row.occurred_at.toISOString() })}\n`);
    },
    async list(_actor, query) {
      const limit = Math.min(query.limit ?? 50, 200);
      const position = query.cursor === undefined ? undefined : decodeListCursor(query.cursor, 'audit', 2);
      const after = position && { time: parseCursorTime(position[0] ?? ''), id: position[1] ?? '' };
      const rows = await listAuditEvents(options.db, {
        action: query.action,
        targetType: query.target_type,
        targetId: query.target_id,
        actorSubject: query.actor_subject,
        after,
        limit: limit + 1,
      });
      const page = rows.slice(0, limit);
      const last = page.at(-1);
      return { events: page.map(present), ...(rows.length > limit && last && { next_cursor: encodeListCursor('audit', [last.occurred_at.toISOString(), last.id]) }) };
    },
    close() {
      if (fd !== undefined) closeSync(fd);
    },
  };
}

function parseCursorTime(text: string): Date {
  const time = new Date(text);
  if (Number.isNaN(time.getTime())) throw new InvalidInputError('cursor: not a cursor of this list; start again without one');
  return time;
}
