import type { Kysely } from 'kysely';
import type { ChangeFeed } from '../../core/db/change-feed.js';
import { InvalidInputError, PreconditionFailedError } from '../../core/errors.js';
import type { AuditTrail } from '../audit/service.js';
import { TOPICS } from '../context.js';
import type { PlatformDatabase } from '../db.js';
import type { Actor } from '../identity/actor.js';
import { parseMoney } from '../money.js';
import { ifMatches } from '../pricing/present.js';
import { collectionEtag, presentCollection } from './present.js';
import type { BudgetCollection, CollectionBody, LimitsBody } from './schemas.js';
import { bumpVersion, existingGroups, listLimits, lockSettings, putLimits, readVersion, replaceLimits, type LimitRow } from './store.js';

export interface CollectionAnswer {
  collection: BudgetCollection;
  etag: string;
}

export interface BudgetsService {
  getCollection(actor: Actor): Promise<CollectionAnswer>;
  setCollection(actor: Actor, body: CollectionBody, ifMatch: string | undefined): Promise<CollectionAnswer>;
  putUserBudget(actor: Actor, subjectId: string, body: LimitsBody, ifMatch: string | undefined): Promise<CollectionAnswer>;
  putGroupBudget(actor: Actor, groupId: string, body: LimitsBody, ifMatch: string | undefined): Promise<CollectionAnswer>;
}

export interface BudgetsServiceOptions {
  db: Kysely<PlatformDatabase>;
  audit: AuditTrail;
  changes: ChangeFeed;
  /** Runs once a write has committed, before it answers (the in-memory ledger reloads its limits). */
  afterWrite?: () => Promise<void>;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A limit as stored: a decimal string, or null (no budget). */
const limitOf = (field: string, value: string | null | undefined): string | null => (value === undefined || value === null ? null : parseMoney(field, value).toFixed());

function rowOf(scope: LimitRow['scope'], subjectId: string, body: LimitsBody, field: string): LimitRow {
  return {
    scope,
    subject_id: subjectId,
    day_limit_usd: limitOf(`${field}day_limit_usd`, body.day_limit_usd),
    month_limit_usd: limitOf(`${field}month_limit_usd`, body.month_limit_usd),
  };
}

function groupId(field: string, id: string): string {
  if (!UUID.test(id)) throw new InvalidInputError(`${field}: "${id}" is not a group id (the UUID of a directory group)`);
  return id.toLowerCase();
}

const hasLimit = (row: LimitRow) => row.day_limit_usd !== null || row.month_limit_usd !== null;

function itemRows(scope: 'user' | 'group', items: CollectionBody['users'], list: string): LimitRow[] {
  const seen = new Set<string>();
  return items.map((item, index) => {
    if (seen.has(item.subject_id)) throw new InvalidInputError(`${list}[${String(index)}].subject_id: "${item.subject_id}" appears more than once in ${list}`);
    seen.add(item.subject_id);
    return rowOf(scope, item.subject_id, item, `${list}[${String(index)}].`);
  });
}

export function createBudgetsService(options: BudgetsServiceOptions): BudgetsService {
  const { db, audit, changes } = options;

  /** Every id must name a directory group (ids are stored lower case, as the directory's). */
  const checkGroups = async (trx: Kysely<PlatformDatabase>, ids: readonly string[], field: (index: number) => string) => {
    const existing = await existingGroups(trx, ids);
    const unknown = ids.findIndex((id) => !existing.has(id));
    if (unknown >= 0) throw new InvalidInputError(`${field(unknown)}: no directory group has the id "${ids[unknown] ?? ''}"`);
  };

  /** One write: the settings lock, If-Match against the current version, the change, the audit record and the news. */
  const write = async (actor: Actor, ifMatch: string | undefined, change: (trx: Kysely<PlatformDatabase>) => Promise<{ action: string; targetType: string; targetId: string | null }>) => {
    const answer = await db.transaction().execute(async (trx) => {
      const version = await lockSettings(trx);
      if (ifMatch !== undefined && !ifMatches(ifMatch, [collectionEtag(version)])) {
        throw new PreconditionFailedError('If-Match: the budgets changed since you read them; read GET /v1/budgets again', { etag: collectionEtag(version) });
      }
      const before = presentCollection(await listLimits(trx));
      const target = await change(trx);
      const next = await bumpVersion(trx);
      const collection = presentCollection(await listLimits(trx));
      await audit.record(trx, { actor, ...target, before, after: collection });
      await changes.publish(trx as never, TOPICS.budgets);
      return { collection, etag: collectionEtag(next) };
    });
    await options.afterWrite?.();
    return answer;
  };

  return {
    getCollection: () =>
      db.transaction().execute(async (trx) => {
        const version = await readVersion(trx);
        return { collection: presentCollection(await listLimits(trx)), etag: collectionEtag(version) };
      }),

    async setCollection(actor, body, ifMatch) {
      const groups = body.groups.map((group, index) => ({ ...group, subject_id: groupId(`groups[${String(index)}].subject_id`, group.subject_id) }));
      const rows = [rowOf('default', '', body.default_user, 'default_user.'), ...itemRows('user', body.users, 'users'), ...itemRows('group', groups, 'groups')];
      return write(actor, ifMatch, async (trx) => {
        await checkGroups(
          trx,
          groups.map((group) => group.subject_id),
          (index) => `groups[${String(index)}].subject_id`,
        );
        await replaceLimits(trx, rows.filter(hasLimit));
        return { action: 'budgets.replace', targetType: 'budgets', targetId: null };
      });
    },

    async putUserBudget(actor, subjectId, body, ifMatch) {
      const row = rowOf('user', subjectId, body, 'body.');
      return write(actor, ifMatch, async (trx) => {
        await putLimits(trx, row);
        return { action: 'budgets.user.put', targetType: 'budget_user', targetId: subjectId };
      });
    },

    async putGroupBudget(actor, id, body, ifMatch) {
      const group = groupId('id', id);
      const row = rowOf('group', group, body, 'body.');
      return write(actor, ifMatch, async (trx) => {
        await checkGroups(trx, [group], () => 'id');
        await putLimits(trx, row);
        return { action: 'budgets.group.put', targetType: 'budget_group', targetId: group };
      });
    },
  };
}
