import { sql, type Kysely, type Selectable, type SelectQueryBuilder } from 'kysely';
import type { PlatformDatabase } from '../db.js';
import type { UsageOutcome } from './schemas.js';
import type { ChargesTable, UsageEventsTable } from './tables.js';

export type ChargeRow = Selectable<ChargesTable>;
export type UsageEventRow = Selectable<UsageEventsTable>;
type Db = Kysely<PlatformDatabase>;

/** A keyset position: event_time, then id (both lists sort by them descending). */
export interface TimePosition {
  at: Date;
  id: string;
}

export interface PageQuery {
  /** Rows after this position (older), newest first. */
  after?: TimePosition | undefined;
  /** Rows before this position (newer), nearest first: the oldest of them first. */
  before?: TimePosition | undefined;
  limit: number;
}

interface TimeFilter {
  /** Inclusive (never before the retention horizon). */
  from: Date;
  /** Exclusive. */
  to?: Date | undefined;
  model?: string | undefined;
  authSubject?: string | undefined;
}

export interface ChargeFilter extends TimeFilter {
  scope?: 'user' | 'group' | undefined;
  subjectId?: string | undefined;
}

export interface UsageEventFilter extends TimeFilter {
  outcome?: UsageOutcome | undefined;
}

/** The keyset condition and order of a page: the row comparison walks the (event_time desc, id desc) indexes. */
function paged<T extends 'charges' | 'usage_events', O>(query: SelectQueryBuilder<PlatformDatabase, T, O>, page: PageQuery): SelectQueryBuilder<PlatformDatabase, T, O> {
  const position = (at: TimePosition) => sql`(${at.at}::timestamptz, ${at.id}::uuid)`;
  if (page.before) {
    return query
      .where(sql<boolean>`(event_time, id) > ${position(page.before)}`)
      .orderBy(sql`event_time asc, id asc`)
      .limit(page.limit);
  }
  const after = page.after ? query.where(sql<boolean>`(event_time, id) < ${position(page.after)}`) : query;
  return after.orderBy(sql`event_time desc, id desc`).limit(page.limit);
}

export async function listChargesPage(db: Db, filter: ChargeFilter, page: PageQuery): Promise<ChargeRow[]> {
  let query = db.selectFrom('charges').selectAll().where('event_time', '>=', filter.from);
  if (filter.to !== undefined) query = query.where('event_time', '<', filter.to);
  if (filter.model !== undefined) query = query.where('model', '=', filter.model);
  if (filter.authSubject !== undefined) query = query.where('auth_subject', '=', filter.authSubject);
  if (filter.scope !== undefined) query = query.where('scope', '=', filter.scope);
  if (filter.subjectId !== undefined) query = query.where('subject_id', '=', filter.subjectId);
  return paged(query, page).execute();
}

export async function listUsageEventsPage(db: Db, filter: UsageEventFilter, page: PageQuery): Promise<UsageEventRow[]> {
  let query = db.selectFrom('usage_events').selectAll().where('event_time', '>=', filter.from);
  if (filter.to !== undefined) query = query.where('event_time', '<', filter.to);
  if (filter.model !== undefined) query = query.where('model', '=', filter.model);
  if (filter.authSubject !== undefined) query = query.where('auth_subject', '=', filter.authSubject);
  if (filter.outcome !== undefined) query = query.where('outcome', '=', filter.outcome);
  return paged(query, page).execute();
}

export interface SpendFilter {
  from: Date;
  to: Date;
  scope: 'user' | 'group';
  subjectId?: string | undefined;
  model?: string | undefined;
}

function spendConditions(filter: SpendFilter) {
  return sql.join(
    [
      sql`event_time >= ${filter.from}`,
      sql`event_time < ${filter.to}`,
      sql`scope = ${filter.scope}`,
      ...(filter.subjectId === undefined ? [] : [sql`subject_id = ${filter.subjectId}`]),
      ...(filter.model === undefined ? [] : [sql`model = ${filter.model}`]),
    ],
    sql` and `,
  );
}

/** Charged USD per UTC day (YYYY-MM-DD), days without charges absent. */
export async function spendByDay(db: Db, filter: SpendFilter): Promise<{ day: string; usd: string }[]> {
  const { rows } = await sql<{ day: string; usd: string }>`
    select to_char(day, 'YYYY-MM-DD') as day, usd
    from (select date_trunc('day', event_time at time zone 'UTC') as day, sum(charged_usd)::text as usd from charges where ${spendConditions(filter)} group by 1) as days`.execute(db);
  return rows;
}

/** The columns the export groups by: `user` is the charge's auth_subject. */
const DIMENSION_COLUMNS = { user: 'auth_subject', model: 'model', provider: 'provider' } as const;

export interface SpendExportQuery extends SpendFilter {
  unit: 'day' | 'week' | 'month';
  dimensions: readonly (keyof typeof DIMENSION_COLUMNS)[];
}

/**
 * The export's rows, as one query: bucket (the UTC day, the week's Monday or the month's 1st), the
 * dimensions in order (d0, d1, ...), the sum; sorted bucket, sum descending, keys in byte order.
 */
export function spendExportQuery(query: SpendExportQuery) {
  const keys = query.dimensions.map((dimension, index) => sql`${sql.ref(DIMENSION_COLUMNS[dimension])} as ${sql.raw(`d${index}`)}`);
  const groups = query.dimensions.map((dimension) => sql.ref(DIMENSION_COLUMNS[dimension]));
  const keyOrder = query.dimensions.map((dimension) => sql`${sql.ref(DIMENSION_COLUMNS[dimension])} collate "C" asc`);
  const bucket = sql`date_trunc(${sql.lit(query.unit)}, event_time at time zone 'UTC')`;
  return sql`
    select to_char(${bucket}, 'YYYY-MM-DD') as bucket_start, ${sql.join(keys)}, sum(charged_usd)::text as charged_usd
    from charges where ${spendConditions(query)}
    group by ${sql.join([bucket, ...groups])}
    having sum(charged_usd) <> 0
    order by ${sql.join([sql`${bucket} asc`, sql`sum(charged_usd) desc`, ...keyOrder])}`;
}
