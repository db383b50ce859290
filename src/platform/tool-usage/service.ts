import type { Kysely } from 'kysely';
import type { Clock } from '../../core/clock.js';
import { InvalidInputError } from '../../core/errors.js';
import { decodeListCursor, encodeListCursor } from '../../core/http/cursor.js';
import type { PlatformDatabase } from '../db.js';
import type { Gateways } from '../gateways/index.js';
import type { Actor } from '../identity/actor.js';
import type { IdentityResolver } from '../identity/resolver.js';
import * as read from './read-store.js';
import {
  ACTIVITY_MAX_LIMIT,
  EXPORT_MAX_LIMIT,
  TOP_MAX_LIMIT,
  type ActivityPage,
  type ActivityQuery,
  type ConnectorUsage,
  type ExportPage,
  type ExportQuery,
  type Summary,
  type Timeseries,
  type TimeseriesQuery,
  type TopConnectors,
  type TopQuery,
  type TopTools,
  type UserUsage,
  type UserWindowQuery,
  type WindowQuery,
} from './schemas.js';
import { bucketStarts, bucketWidthSeconds, cover, COUNT_WIDTHS, parseInstant, USER_WIDTHS } from './windows.js';

export interface ToolUsageService {
  connectorUsage(actor: Actor, connectorId: string, query: WindowQuery): Promise<ConnectorUsage>;
  myActivity(actor: Actor, query: ActivityQuery): Promise<ActivityPage>;
  exportRecords(actor: Actor, query: ExportQuery): Promise<ExportPage>;
  topConnectors(actor: Actor, query: TopQuery): Promise<TopConnectors>;
  topTools(actor: Actor, query: TopQuery): Promise<TopTools>;
  summary(actor: Actor, query: WindowQuery): Promise<Summary>;
  timeseries(actor: Actor, query: TimeseriesQuery): Promise<Timeseries>;
  userUsage(actor: Actor, userId: string, query: UserWindowQuery): Promise<UserUsage>;
}

export interface ToolUsageServiceOptions {
  db: Kysely<PlatformDatabase>;
  clock: Clock;
  gateways: Gateways;
  identity: IdentityResolver;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const LISTS = { activity: 'me.tool-usage.calls', export: 'tool-usage.export' } as const;

/** A window resolved: [from, to) in ms; empty (from = to) when no record is there and no start was given. */
interface Window {
  from: number;
  to: number;
}

function uuidOf(field: string, value: string): string {
  if (!UUID.test(value)) throw new InvalidInputError(`${field}: "${value}" is not a UUID`);
  return value.toLowerCase();
}

function limitOf(limit: number | undefined, fallback: number, max: number): number {
  return Math.min(limit ?? fallback, max);
}

export function createToolUsageService(options: ToolUsageServiceOptions): ToolUsageService {
  const { db, clock, gateways, identity } = options;

  const scopeOf = (query: WindowQuery, connectorId?: string): read.Scope => {
    if (!gateways.list().some((gateway) => gateway.id === query.gateway_id)) {
      throw new InvalidInputError(`gateway_id: no gateway "${query.gateway_id}" (configured: ${gateways.list().map((gateway) => gateway.id).join(', ')})`);
    }
    return { chainId: query.gateway_id, environment: query.environment, connectorId };
  };
  /** Explicit bounds are checked before anything is read; a missing start is the first record, a missing end now. */
  const boundsOf = (query: WindowQuery) => {
    const start = query.start === undefined ? undefined : parseInstant('start', query.start);
    const end = query.end === undefined ? undefined : parseInstant('end', query.end);
    if (start !== undefined && start >= (end ?? clock.now().getTime())) {
      throw new InvalidInputError(`start: must be before end${end === undefined ? ' (default: now)' : ''}`);
    }
    return { start, end };
  };
  const windowOf = async (query: WindowQuery, scope: read.Scope): Promise<Window> => {
    const { start, end } = boundsOf(query);
    const to = end ?? clock.now().getTime();
    if (start !== undefined) return { from: start, to };
    const first = await read.firstRecordAt(db, { chainId: scope.chainId, environment: scope.environment });
    return { from: Math.min(first?.getTime() ?? to, to), to };
  };
  const iso = (ms: number) => new Date(ms).toISOString();

  return {
    async connectorUsage(_actor, id, query) {
      const connectorId = uuidOf('id', id);
      const scope = scopeOf(query, connectorId);
      const window = await windowOf(query, scope);
      const width = bucketWidthSeconds(window.to - window.from);
      const blocks = cover(window.from, window.to, COUNT_WIDTHS.filter((candidate) => candidate <= width));
      const [totals, groups, name] = await Promise.all([
        read.countsByBucket(db, scope, blocks, undefined, undefined),
        read.groupsByBucket(db, scope, blocks, width),
        read.latestConnectorName(db, scope, blocks),
      ]);
      const starts = bucketStarts(window.from, window.to, width);
      const series = new Map<string, { name: string; at: number; counts: Map<number, number> }>();
      for (const row of groups) {
        const entry = series.get(row.group_id) ?? { name: row.group_name, at: 0, counts: new Map<number, number>() };
        if (row.at.getTime() >= entry.at) Object.assign(entry, { name: row.group_name, at: row.at.getTime() });
        entry.counts.set(row.bucket, row.count);
        series.set(row.group_id, entry);
      }
      const group_series = [...series.entries()]
        .sort(([leftId, left], [rightId, right]) => (left.name === right.name ? (leftId < rightId ? -1 : 1) : left.name < right.name ? -1 : 1))
        .map(([id, entry]) => ({ group: { id, name: entry.name }, points: starts.map((start) => ({ bucket_start: iso(start), tool_call_count: entry.counts.get(start) ?? 0 })) }));
      return { connector_id: connectorId, connector_name: name ?? null, group_series, tool_call_count: totals.reduce((sum, row) => sum + row.count, 0) };
    },

    async myActivity(actor, query) {
      const scope = scopeOf(query, uuidOf('connector_id', query.connector_id));
      const { start, end } = boundsOf(query);
      if (query.cursor !== undefined && query.before !== undefined) throw new InvalidInputError('cursor and before: send one of them, not both');
      const { user } = await identity.resolve(actor);
      const positionOf = (cursor: string, parameter: 'cursor' | 'before') => {
        const [time = '', id = ''] = decodeListCursor(cursor, LISTS.activity, 2, parameter);
        const at = new Date(time);
        if (Number.isNaN(at.getTime()) || at.toISOString() !== time || !UUID.test(id)) throw new InvalidInputError(`${parameter}: not a cursor of this list; start again without one`);
        return { at, id };
      };
      const after = query.cursor === undefined ? undefined : positionOf(query.cursor, 'cursor');
      const before = query.before === undefined ? undefined : positionOf(query.before, 'before');
      const limit = limitOf(query.limit, 50, ACTIVITY_MAX_LIMIT);
      const found = await read.activityPage(
        db,
        { ...scope, userId: user.id, outcome: query.outcome, decision: query.decision, from: start === undefined ? undefined : new Date(start), to: end === undefined ? undefined : new Date(end) },
        { after, before, limit: limit + 1 },
      );
      const more = found.length > limit;
      const rows = before ? found.slice(0, limit).reverse() : found.slice(0, limit);
      const encode = (row: (typeof rows)[number]) => encodeListCursor(LISTS.activity, [row.occurred_at.toISOString(), row.id]);
      const first = rows.at(0);
      const last = rows.at(-1);
      const hasNext = before ? true : more;
      const hasPrev = before ? more : after !== undefined;
      return { records: rows.map((row) => row.usage), ...(hasNext && last && { next_cursor: encode(last) }), ...(hasPrev && first && { prev_cursor: encode(first) }) };
    },

    async exportRecords(_actor, query) {
      const scope = scopeOf(query);
      const { start, end } = boundsOf(query);
      let after = 0;
      if (query.cursor !== undefined) {
        const [gateway = '', sequence = ''] = decodeListCursor(query.cursor, LISTS.export, 2);
        if (gateway !== scope.chainId || !/^\d{1,15}$/.test(sequence)) throw new InvalidInputError('cursor: not a cursor of this list; start again without one');
        after = Number(sequence);
      }
      const limit = limitOf(query.limit, 50, EXPORT_MAX_LIMIT);
      const found = await read.exportPage(db, { ...scope, from: start === undefined ? undefined : new Date(start), to: end === undefined ? undefined : new Date(end) }, after, limit + 1);
      const records = found.slice(0, limit);
      const last = records.at(-1);
      const checkpoints = last ? await read.checkpointsBetween(db, scope.chainId, after, last.sequence) : [];
      return {
        checkpoints: checkpoints.map((checkpoint) => ({
          chain_hash: checkpoint.chain_hash,
          chain_id: checkpoint.chain_id,
          hash_alg: 'SHA-256' as const,
          key_id: checkpoint.key_id,
          sequence: checkpoint.sequence,
          sig_alg: 'ES256' as const,
          signature: checkpoint.signature,
          signed_at: checkpoint.signed_at.toISOString(),
        })),
        ...(found.length > limit && last && { next_cursor: encodeListCursor(LISTS.export, [scope.chainId, String(last.sequence)]) }),
        records,
      };
    },

    async topConnectors(_actor, query) {
      const scope = scopeOf(query);
      const window = await windowOf(query, scope);
      const rows = await read.topCounts(db, scope, cover(window.from, window.to, COUNT_WIDTHS), false, limitOf(query.limit, 10, TOP_MAX_LIMIT));
      return { connectors: rows.map((row) => ({ connector_id: row.connector_id, connector_name: row.connector_name, tool_call_count: row.count })) };
    },

    async topTools(_actor, query) {
      const scope = scopeOf(query);
      const window = await windowOf(query, scope);
      const rows = await read.topCounts(db, scope, cover(window.from, window.to, COUNT_WIDTHS), true, limitOf(query.limit, 10, TOP_MAX_LIMIT));
      return { tools: rows.map((row) => ({ connector_id: row.connector_id, connector_name: row.connector_name, tool_call_count: row.count, tool_name: row.tool_name })) };
    },

    async summary(_actor, query) {
      const scope = scopeOf(query);
      const window = await windowOf(query, scope);
      const [counts, users] = await Promise.all([
        read.seriesByBucket(db, scope, cover(window.from, window.to, COUNT_WIDTHS), undefined, undefined),
        read.distinctUsers(db, scope, cover(window.from, window.to, USER_WIDTHS)),
      ]);
      return { active_user_count: users, tool_call_count: counts.reduce((sum, row) => sum + row.count, 0) };
    },

    async timeseries(_actor, query) {
      const scope = scopeOf(query);
      const window = await windowOf(query, scope);
      const width = bucketWidthSeconds(window.to - window.from);
      const blocks = cover(window.from, window.to, COUNT_WIDTHS.filter((candidate) => candidate <= width));
      const rows = await read.seriesByBucket(db, scope, blocks, width, query.dimension);
      const byBucket = new Map<number, { key: string; tool_call_count: number }[]>();
      for (const row of rows) byBucket.set(row.bucket, [...(byBucket.get(row.bucket) ?? []), { key: row.key, tool_call_count: row.count }]);
      const buckets = bucketStarts(window.from, window.to, width).map((start) => {
        const keys = (byBucket.get(start) ?? []).sort((left, right) => right.tool_call_count - left.tool_call_count || (left.key < right.key ? -1 : left.key > right.key ? 1 : 0));
        const total = keys.reduce((sum, key) => sum + key.tool_call_count, 0);
        return { ...(query.dimension !== undefined && { breakdown: keys }), bucket_start: iso(start), tool_call_count: total };
      });
      return { bucket_width_seconds: width, buckets, ...(query.dimension !== undefined && { dimension: query.dimension }) };
    },

    async userUsage(_actor, id, query) {
      const userId = uuidOf('id', id);
      const scope = scopeOf(query);
      const window = await windowOf(query, scope);
      const filter = { ...scope, userId, from: new Date(window.from), to: new Date(window.to) };
      const width = bucketWidthSeconds(window.to - window.from);
      const [tools, buckets] = await Promise.all([read.userTools(db, filter), read.userBuckets(db, filter, width)]);
      const connectors = new Map<string, UserUsage['connectors'][number] & { at: number }>();
      for (const tool of tools.sort((left, right) => right.last.getTime() - left.last.getTime())) {
        const entry = connectors.get(tool.connector_id) ?? { connector_id: tool.connector_id, connector_name: tool.connector_name, last_activity: tool.last.toISOString(), tool_call_count: 0, tools: [], at: tool.last.getTime() };
        entry.tool_call_count += tool.count;
        entry.tools.push({ last_activity: tool.last.toISOString(), tool_call_count: tool.count, tool_name: tool.tool_name });
        connectors.set(tool.connector_id, entry);
      }
      const ordered = [...connectors.values()].sort((left, right) => right.tool_call_count - left.tool_call_count || (left.connector_name < right.connector_name ? -1 : 1));
      for (const entry of ordered) entry.tools.sort((left, right) => right.tool_call_count - left.tool_call_count || (left.tool_name < right.tool_name ? -1 : 1));
      const counted = new Map(buckets.map((row) => [row.bucket, row.count]));
      const latest = ordered.reduce((max, entry) => Math.max(max, entry.at), 0);
      return {
        connectors: ordered.map(({ at: _at, ...entry }) => entry),
        last_activity: latest === 0 ? null : iso(latest),
        series: bucketStarts(window.from, window.to, width).map((start) => ({ bucket_start: iso(start), tool_call_count: counted.get(start) ?? 0 })),
        tool_call_count: ordered.reduce((sum, entry) => sum + entry.tool_call_count, 0),
        user_id: userId,
      };
    },
  };
}
