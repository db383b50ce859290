import type { Kysely } from 'kysely';
import type { Clock } from '../../core/clock.js';
import { ConflictError, ForbiddenError, InvalidInputError, NotFoundError } from '../../core/errors.js';
import type { Ids } from '../../core/ids.js';
import type { AuditTrail } from '../audit/service.js';
import type { ConnectorDecisions } from '../connector-policies/decisions.js';
import type { PlatformDatabase } from '../db.js';
import { cursorsOf, keysetOf } from '../directory/paging.js';
import type { Page, PageQuery } from '../directory/schemas.js';
import { inOrder } from '../directory/store.js';
import type { Gateways } from '../gateways/index.js';
import type { Actor } from '../identity/actor.js';
import type { IdentityResolver } from '../identity/resolver.js';
import { presentConnection } from './present.js';
import type { Connection, CreateConnectionBody, EnabledBody, ToolsBody } from './schemas.js';
import type { ConnectionMemory } from './lookup.js';
import * as store from './store.js';

export interface ConnectionService {
  listOfConnector(actor: Actor, gatewayId: string, connectorId: string, query: PageQuery): Promise<Page<Connection>>;
  get(actor: Actor, id: string): Promise<Connection>;
  create(actor: Actor, body: CreateConnectionBody): Promise<Connection>;
  listMine(actor: Actor, query: PageQuery): Promise<Page<Connection>>;
  setEnabled(actor: Actor, id: string, body: EnabledBody): Promise<Connection>;
  setTools(actor: Actor, id: string, body: ToolsBody): Promise<Connection>;
  delete(actor: Actor, id: string): Promise<void>;
}

export interface ConnectionServiceOptions {
  db: Kysely<PlatformDatabase>;
  clock: Clock;
  ids: Ids;
  audit: AuditTrail;
  identity: IdentityResolver;
  decisions: ConnectorDecisions;
  gateways: Gateways;
  /** The memory the connector gateway reads: told of every write. */
  memory: Pick<ConnectionMemory, 'announce' | 'forget'>;
}

/** Duplicates are refused rather than merged: the list is what the user sees in the narrowing. */
function checkExceptions(list: readonly string[]): void {
  const seen = new Set<string>();
  for (const [index, name] of list.entries()) {
    if (seen.has(name)) throw new InvalidInputError(`tools_exception_list[${String(index)}]: "${name}" is listed twice; list each tool once`);
    seen.add(name);
  }
}

const uniqueViolation = (error: unknown) => typeof error === 'object' && error !== null && (error as { code?: unknown }).code === '23505';

export function createConnectionService(options: ConnectionServiceOptions): ConnectionService {
  const { db, clock, ids, audit, identity, decisions, gateways, memory } = options;
  /** A connection write: announced in its transaction, forgotten here as soon as it commits. */
  const write = async <T>(work: (trx: Kysely<PlatformDatabase>) => Promise<T>): Promise<T> => {
    const result = await db.transaction().execute(async (trx) => {
      const value = await work(trx);
      await memory.announce(trx);
      return value;
    });
    memory.forget();
    return result;
  };

  const page = async (list: string, by: Parameters<typeof store.listConnections>[1], query: PageQuery): Promise<Page<Connection>> => {
    const keyset = keysetOf({ list, ...query });
    const at = (position: readonly [string, string] | undefined, parameter: string): readonly [Date, string] | undefined => {
      if (position === undefined) return undefined;
      const time = new Date(position[0]);
      if (Number.isNaN(time.getTime())) throw new InvalidInputError(`${parameter}: not a cursor of this list; start again without one`);
      return [time, position[1]];
    };
    const after = at(keyset.after, 'cursor');
    const before = at(keyset.before, 'before');
    const read = await store.listConnections(db, by, { limit: keyset.limit, ...(after && { after }), ...(before && { before }) });
    const { rows, more } = inOrder(read, keyset);
    const cursors = cursorsOf(list, rows, keyset, more, (row) => [row.created_at.toISOString(), row.id]);
    return { items: rows.map(presentConnection), ...(cursors.next && { next_cursor: cursors.next }), ...(cursors.prev && { prev_cursor: cursors.prev }) };
  };

  const connectorOf = (executor: Kysely<PlatformDatabase>, gatewayId: string, connectorId: string) =>
    executor.selectFrom('connectors').select(['id', 'name', 'gateway_id']).where('gateway_id', '=', gatewayId).where('id', '=', connectorId).executeTakeFirst();

  /** The caller's own connection; another user's is as unknown as a missing one. */
  const mine = async (actor: Actor, id: string) => {
    const { user } = await identity.resolve(actor);
    const row = await store.findConnection(db, id);
    if (!row || row.user_id !== user.id) throw new NotFoundError(`you have no connection with id ${id}`);
    return { user, row };
  };

  const update = async (actor: Actor, action: string, before: store.ConnectionRow, fields: Parameters<typeof store.updateConnection>[2]) =>
    write(async (trx) => {
      const row = await store.updateConnection(trx, before.id, fields);
      if (!row) throw new NotFoundError(`you have no connection with id ${before.id}`);
      const after = presentConnection(row);
      await audit.record(trx, { actor, actorUserId: row.user_id, action, targetType: 'connection', targetId: row.id, before: presentConnection(before), after });
      return after;
    });

  return {
    async listOfConnector(_actor, gatewayId, connectorId, query) {
      if (!gateways.list().some((gateway) => gateway.id === gatewayId)) throw new NotFoundError(`no connector gateway with id "${gatewayId}" (GET /v1/gateways lists them)`);
      if (!(await connectorOf(db, gatewayId, connectorId))) throw new NotFoundError(`no connector with id ${connectorId} on gateway "${gatewayId}"`);
      return page(`connections:${connectorId}`, { connectorId }, query);
    },

    async get(_actor, id) {
      const row = await store.findConnection(db, id);
      if (!row) throw new NotFoundError(`no connection with id ${id}`);
      return presentConnection(row);
    },

    async create(actor, body) {
      const { user } = await identity.resolve(actor);
      if (!gateways.list().some((gateway) => gateway.id === body.gateway_id)) throw new InvalidInputError(`gateway_id: no connector gateway with id "${body.gateway_id}" (GET /v1/gateways lists them)`);
      const list = body.tools_exception_list ?? [];
      checkExceptions(list);
      const connector = await connectorOf(db, body.gateway_id, body.connector_id);
      if (!connector) throw new NotFoundError(`connector_id: no connector with id ${body.connector_id} on gateway "${body.gateway_id}"`);
      if (!(await decisions.canUse(user.id, connector))) throw new ForbiddenError(`connector_id: connector ${connector.id} is not visible to you: its policy does not let you use it`);
      const now = clock.now();
      const row: store.ConnectionRow = {
        id: ids.uuid(),
        gateway_id: body.gateway_id,
        connector_id: connector.id,
        user_id: user.id,
        enabled: body.enabled ?? true,
        tools_enabled_by_default: body.tools_enabled_by_default ?? true,
        tools_exception_list: list,
        created_at: now,
        updated_at: now,
      };
      const exists = () => new ConflictError(`connector_id: you already have a connection to connector ${connector.id}; change it (PUT /v1/me/connections/{id}/…) or delete it first`);
      try {
        return await write(async (trx) => {
          if (!(await store.insertConnection(trx, row))) throw exists();
          const created = presentConnection(row);
          await audit.record(trx, { actor, actorUserId: user.id, action: 'connection.create', targetType: 'connection', targetId: row.id, after: created });
          return created;
        });
      } catch (error) {
        // the connector deleted meanwhile: its foreign key refuses the row
        if (typeof error === 'object' && error !== null && (error as { code?: unknown }).code === '23503') throw new NotFoundError(`connector_id: no connector with id ${body.connector_id} on gateway "${body.gateway_id}"`);
        if (uniqueViolation(error)) throw exists();
        throw error;
      }
    },

    async listMine(actor, query) {
      const { user } = await identity.resolve(actor);
      return page(`my-connections:${user.id}`, { userId: user.id }, query);
    },

    async setEnabled(actor, id, body) {
      const { user, row } = await mine(actor, id);
      if (body.enabled) {
        const connector = await connectorOf(db, row.gateway_id, row.connector_id);
        if (!connector || !(await decisions.canUse(user.id, connector))) throw new ForbiddenError(`connector ${row.connector_id} is not visible to you: its policy does not let you use it, so its connection cannot be enabled`);
      }
      return update(actor, 'connection.enabled', row, { enabled: body.enabled, updated_at: clock.now() });
    },

    async setTools(actor, id, body) {
      checkExceptions(body.tools_exception_list);
      const { row } = await mine(actor, id);
      return update(actor, 'connection.tools', row, { tools_enabled_by_default: body.tools_enabled_by_default, tools_exception_list: body.tools_exception_list, updated_at: clock.now() });
    },

    async delete(actor, id) {
      const { user, row } = await mine(actor, id);
      await write(async (trx) => {
        await store.deleteConnection(trx, id);
        await audit.record(trx, { actor, actorUserId: user.id, action: 'connection.delete', targetType: 'connection', targetId: id, before: presentConnection(row) });
      });
    },
  };
}
