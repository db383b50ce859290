import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Clock } from '../../core/clock.js';
import { InvalidInputError, NotFoundError } from '../../core/errors.js';
import type { PlatformDatabase } from '../db.js';
import type { Actor } from '../identity/actor.js';
import type { IdentityResolver } from '../identity/resolver.js';
import { formatMoney } from '../money.js';
import { csvLine } from './csv.js';
import { readThroughCursor } from './operations/read-through-cursor.js';
import { pageOf, readPage, type PageRequest } from './paging.js';
import {
  ADMIN_MAX_LIMIT,
  EXPORT_DIMENSIONS,
  OWN_MAX_LIMIT,
  type ChargePage,
  type ChargesQuery,
  type ExportDimension,
  type ExportQuery,
  type OwnChargesQuery,
  type OwnSeriesQuery,
  type OwnUsageEventsQuery,
  type Series,
  type SeriesQuery,
  type UsageEventPage,
  type UsageEventsQuery,
} from './schemas.js';
import { presentCharge, presentUsageEvent } from './present.js';
import { listChargesPage, listUsageEventsPage, spendByDay, spendExportQuery, type SpendFilter } from './store.js';
import { addDays, formatDate, horizonOf, listWindow, parseDate, parseInstant, servedWindow } from './window.js';

export interface SpendExport {
  /** The served window, after defaults and clamping. */
  from: Date;
  to: Date;
  /** The CSV, header first, a batch of rows a chunk; read lazily from a database cursor. */
  body: AsyncIterable<string>;
}

export interface UsageService {
  listCharges(actor: Actor, query: ChargesQuery): Promise<ChargePage>;
  listOwnCharges(actor: Actor, query: OwnChargesQuery): Promise<ChargePage>;
  listUsageEvents(actor: Actor, query: UsageEventsQuery): Promise<UsageEventPage>;
  listOwnUsageEvents(actor: Actor, query: OwnUsageEventsQuery): Promise<UsageEventPage>;
  series(actor: Actor, query: SeriesQuery): Promise<Series>;
  ownSeries(actor: Actor, query: OwnSeriesQuery): Promise<Series>;
  /** Every parameter is checked before this resolves: errors are JSON, never a broken CSV. */
  exportSpend(actor: Actor, query: ExportQuery): Promise<SpendExport>;
}

export interface UsageServiceOptions {
  db: Kysely<PlatformDatabase>;
  clock: Clock;
  identity: IdentityResolver;
  logger: Logger;
  /** `usage.retentionDays`. */
  retentionDays: number;
  /** `experiments.spendExport`. */
  spendExport: boolean;
  /** Rows fetched from the export's cursor at a time. */
  exportBatchSize?: number;
}

const LISTS = { charges: 'charges', ownCharges: 'me.charges', events: 'usage-events', ownEvents: 'me.usage-events' } as const;
const optionalInstant = (field: string, text: string | undefined) => (text === undefined ? undefined : parseInstant(field, text));
const optionalDate = (field: string, text: string | undefined) => (text === undefined ? undefined : parseDate(field, text));

/** `group_by`: a comma list of user, model, provider, each at most once. */
function dimensionsOf(text: string | undefined): ExportDimension[] {
  if (text === undefined) return ['user'];
  const names = text.split(',');
  const dimensions: ExportDimension[] = [];
  for (const name of names) {
    const dimension = EXPORT_DIMENSIONS.find((known) => known === name);
    if (dimension === undefined) throw new InvalidInputError(`group_by: "${name}" is not one of ${EXPORT_DIMENSIONS.join(', ')} (a comma list, e.g. user,model)`);
    if (dimensions.includes(dimension)) throw new InvalidInputError(`group_by: "${name}" is given twice; name each dimension at most once`);
    dimensions.push(dimension);
  }
  return dimensions;
}

export function createUsageService(options: UsageServiceOptions): UsageService {
  const { db, clock, identity, logger, retentionDays } = options;
  const batchSize = options.exportBatchSize ?? 1_000;
  const horizon = () => horizonOf(clock.now(), retentionDays);
  /** The caller's OIDC subject, once their directory identity is confirmed (401 when they have none, or are inactive). */
  const ownSubject = async (actor: Actor) => {
    await identity.resolve(actor);
    return actor.subject;
  };

  const charges = async (list: string, maxLimit: number, query: OwnChargesQuery & PageRequest, narrow: { scope?: 'user' | 'group' | undefined; subjectId?: string | undefined; authSubject?: string | undefined }) => {
    const page = pageOf(list, query, maxLimit);
    const window = listWindow(optionalInstant('from', query.from), optionalInstant('to', query.to), horizon());
    const filter = { ...window, model: query.model, ...narrow };
    const { rows, ...cursors } = await readPage(list, page, (at) => listChargesPage(db, filter, at));
    return { charges: rows.map(presentCharge), ...cursors };
  };
  const events = async (list: string, maxLimit: number, query: OwnUsageEventsQuery, authSubject: string | undefined) => {
    const page = pageOf(list, query, maxLimit);
    const window = listWindow(optionalInstant('from', query.from), optionalInstant('to', query.to), horizon());
    const filter = { ...window, model: query.model, outcome: query.outcome, authSubject };
    const { rows, ...cursors } = await readPage(list, page, (at) => listUsageEventsPage(db, filter, at));
    return { events: rows.map(presentUsageEvent), ...cursors };
  };
  const series = async (query: OwnSeriesQuery, narrow: Pick<SpendFilter, 'scope' | 'subjectId'>): Promise<Series> => {
    const window = servedWindow(optionalDate('from', query.from), optionalDate('to', query.to), clock.now(), horizon());
    const spent = new Map((await spendByDay(db, { ...window, ...narrow, model: query.model })).map((row) => [row.day, row.usd]));
    const buckets: Series['buckets'] = [];
    for (let day = window.from; day < window.to; day = addDays(day, 1)) {
      const date = formatDate(day);
      buckets.push({ date, usd: formatMoney(spent.get(date) ?? '0') });
    }
    return { buckets, from: formatDate(window.from), granularity: 'day', to: formatDate(window.to) };
  };

  return {
    listCharges: (_actor, query) => charges(LISTS.charges, ADMIN_MAX_LIMIT, query, { scope: query.scope, subjectId: query.subject_id, authSubject: query.auth_subject }),
    listOwnCharges: async (actor, query) => charges(LISTS.ownCharges, OWN_MAX_LIMIT, query, { authSubject: await ownSubject(actor) }),
    listUsageEvents: (_actor, query) => events(LISTS.events, ADMIN_MAX_LIMIT, query, query.auth_subject),
    listOwnUsageEvents: async (actor, query) => events(LISTS.ownEvents, OWN_MAX_LIMIT, query, await ownSubject(actor)),
    series: (_actor, query) => series(query, { scope: query.scope ?? 'user', subjectId: query.subject_id }),
    ownSeries: async (actor, query) => series(query, { scope: 'user', subjectId: await ownSubject(actor) }),

    exportSpend(_actor, query) {
      if (!options.spendExport) return Promise.reject(new NotFoundError('the spend export is not enabled on this deployment (experiments.spendExport)'));
      const dimensions = dimensionsOf(query.group_by);
      const window = servedWindow(optionalInstant('from', query.from), optionalInstant('to', query.to), clock.now(), horizon());
      const sql = spendExportQuery({ ...window, scope: query.scope ?? 'user', subjectId: query.subject_id, model: query.model, unit: query.granularity ?? 'day', dimensions });
      const header = ['bucket_start', ...(dimensions.length === 1 ? ['group_key'] : dimensions), 'charged_usd'];
      type Row = { bucket_start: string; charged_usd: string } & Record<string, string>;
      const line = (row: Row) => csvLine([row.bucket_start, ...dimensions.map((_dimension, index) => row[`d${index}`] ?? ''), formatMoney(row.charged_usd)]);
      async function* body(): AsyncGenerator<string> {
        yield csvLine(header);
        try {
          for await (const rows of readThroughCursor<Row>(db, sql, batchSize)) yield rows.map(line).join('');
        } catch (error) {
          logger.warn({ err: error }, 'the spend export stopped before its end');
          throw error;
        }
      }
      return Promise.resolve({ ...window, body: body() });
    },
  };
}
