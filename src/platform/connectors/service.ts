import type { Kysely } from 'kysely';
import type { Clock } from '../../core/clock.js';
import type { ChangeFeed } from '../../core/db/change-feed.js';
import { ConflictError, InvalidInputError, NotFoundError } from '../../core/errors.js';
import type { Ids } from '../../core/ids.js';
import type { AuditTrail } from '../audit/service.js';
import { TOPICS } from '../context.js';
import type { PlatformDatabase } from '../db.js';
import { cursorsOf, keysetOf } from '../directory/paging.js';
import type { Page, PageQuery } from '../directory/schemas.js';
import { inOrder } from '../directory/store.js';
import type { Gateways } from '../gateways/index.js';
import type { Actor } from '../identity/actor.js';
import type { ManagedSecrets } from '../secrets/index.js';
import type { EndpointChecker, EndpointStatus } from './check.js';
import { presentConnector } from './present.js';
import type { Connector, ConnectorBody } from './schemas.js';
import { deleteConnector, findConnector, insertConnector, listConnectors, providerExists, takenKeys, updateConnector, type ConnectorRow } from './store.js';
import type { StoredAuth } from './tables.js';
import { checkOrigin, normalizeConnector, type NormalizedConnector } from './validate.js';

export interface ConnectorService {
  create(actor: Actor, gatewayId: string, body: ConnectorBody): Promise<Connector>;
  list(actor: Actor, gatewayId: string, query: PageQuery): Promise<Page<Connector>>;
  get(actor: Actor, gatewayId: string, id: string): Promise<Connector>;
  replace(actor: Actor, gatewayId: string, id: string, body: ConnectorBody): Promise<Connector>;
  delete(actor: Actor, gatewayId: string, id: string): Promise<void>;
}

export interface ConnectorServiceOptions {
  db: Kysely<PlatformDatabase>;
  clock: Clock;
  ids: Ids;
  audit: AuditTrail;
  secrets: ManagedSecrets;
  gateways: Gateways;
  checkEndpoint: EndpointChecker;
  /** Connector writes are announced on it (the connector gateway serves connectors from memory). */
  changes: ChangeFeed;
}

const LIST = 'connectors';
/** How managed secrets name a connector among the records that use them. */
export const CONNECTOR_OWNER_TYPE = 'connector';

/** What a create and a full replace both set from the body (origin and source_* only a create sets). */
const writableFields = (body: ConnectorBody, normalized: NormalizedConnector) => ({
  name: body.name,
  tool_prefix: normalized.toolPrefix,
  endpoint: body.endpoint,
  endpoint_key: normalized.endpointKey,
  transport: body.transport,
  auth: normalized.auth,
  provider_id: normalized.providerId,
  description: body.description ?? null,
  version: body.version ?? null,
  icon_url: body.icon_url ?? null,
  repository_url: body.repository_url ?? null,
  support_url: body.support_url ?? null,
  allow_private_ips: body.allow_private_ips ?? false,
});

const uniqueViolation = (error: unknown) => typeof error === 'object' && error !== null && (error as { code?: unknown }).code === '23505';

/** The 409 of a body whose name, tool prefix or endpoint another connector of the gateway holds. */
function conflictOf(body: ConnectorBody, keys: NormalizedConnector, holders: readonly ConnectorRow[]): ConflictError | undefined {
  for (const holder of holders) {
    if (holder.name.toLowerCase() === body.name.toLowerCase()) return new ConflictError(`name: connector "${holder.name}" (${holder.id}) already has this name on the gateway (names are unique ignoring case)`);
    if (holder.tool_prefix === keys.toolPrefix) return new ConflictError(`name: connector "${holder.name}" (${holder.id}) already has the tool prefix "${keys.toolPrefix}" on the gateway; choose a name that gives another prefix`);
    if (holder.endpoint_key === keys.endpointKey) return new ConflictError(`endpoint: connector "${holder.name}" (${holder.id}) already serves ${holder.endpoint} on the gateway`);
  }
  return undefined;
}

/** The header the endpoint check sends for header_injection: a managed secret's value (a cluster secret is read only at use time). */
async function probeHeaders(auth: StoredAuth, secrets: ManagedSecrets): Promise<Record<string, string>> {
  const block = auth.header_injection;
  const id = block?.value?.managed_secret_id;
  if (block === undefined || id === null || id === undefined) return {};
  try {
    return { [block.header_name]: await secrets.reveal(id) };
  } catch {
    return {};
  }
}

/** Whether an update changes what the endpoint check depends on. */
const probeChanged = (before: ConnectorRow, body: ConnectorBody, auth: StoredAuth) =>
  before.endpoint !== body.endpoint || before.transport !== body.transport || before.allow_private_ips !== (body.allow_private_ips ?? false) || JSON.stringify(before.auth) !== JSON.stringify(auth);

export function createConnectorService(options: ConnectorServiceOptions): ConnectorService {
  const { db, clock, ids, audit, secrets, gateways, checkEndpoint, changes } = options;
  /** Inside the write's transaction: the news leaves with the commit. */
  const announce = (trx: Kysely<PlatformDatabase>) => changes.publish(trx as never, TOPICS.connectors);
  /** After the commit: this replica's followers learn it now, not at the next poll. */
  const settled = async <T>(result: T): Promise<T> => {
    await changes.check();
    return result;
  };

  const gateway = (gatewayId: string) => {
    if (!gateways.list().some((candidate) => candidate.id === gatewayId)) throw new NotFoundError(`no connector gateway with id "${gatewayId}" (GET /v1/gateways lists them)`);
  };

  const statusOf = async (body: ConnectorBody, auth: StoredAuth): Promise<EndpointStatus> =>
    checkEndpoint({ endpoint: body.endpoint, transport: body.transport, allowPrivateIps: body.allow_private_ips ?? false, headers: await probeHeaders(auth, secrets) });

  /** The provider the auth block names must exist before the row names it (its foreign key would be a 500). */
  const requireProvider = async (trx: Kysely<PlatformDatabase>, normalized: NormalizedConnector) => {
    if (normalized.providerId !== null && !(await providerExists(trx, normalized.providerId))) {
      throw new InvalidInputError(`auth.${normalized.auth.type}.provider_id: no connector identity provider with id ${normalized.providerId}`);
    }
  };
  const holdSecrets = (trx: Kysely<PlatformDatabase>, row: ConnectorRow, normalized: NormalizedConnector) =>
    secrets.holdReferences(trx, { type: CONNECTOR_OWNER_TYPE, id: row.id, name: row.name }, normalized.references);

  /** A write that may race another with the same keys: the unique indexes have the last word. */
  const keyed = async <T>(body: ConnectorBody, normalized: NormalizedConnector, gatewayId: string, id: string, work: () => Promise<T>): Promise<T> => {
    try {
      return await work();
    } catch (error) {
      if (!uniqueViolation(error)) throw error;
      throw conflictOf(body, normalized, await takenKeys(db, gatewayId, { name: body.name, ...normalized }, id)) ?? new ConflictError('name, tool prefix or endpoint: another connector of the gateway was written with it meanwhile');
    }
  };

  return {
    async create(actor, gatewayId, body) {
      gateway(gatewayId);
      checkOrigin(body);
      const normalized = await normalizeConnector(body);
      const status = await statusOf(body, normalized.auth);
      const now = clock.now();
      const origin = body.origin ?? 'manual';
      const row: ConnectorRow = {
        id: ids.uuid(),
        gateway_id: gatewayId,
        ...writableFields(body, normalized),
        origin,
        source_name: body.source_name ?? null,
        source_namespace: body.source_namespace ?? null,
        status,
        created_at: now,
        updated_at: now,
      };
      return keyed(body, normalized, gatewayId, row.id, () =>
        db.transaction().execute(async (trx) => {
          const conflict = conflictOf(body, normalized, await takenKeys(trx, gatewayId, { name: body.name, ...normalized }));
          if (conflict) throw conflict;
          await requireProvider(trx, normalized);
          await insertConnector(trx, row);
          await holdSecrets(trx, row, normalized);
          const created = presentConnector(row);
          await audit.record(trx, { actor, action: 'connector.create', targetType: 'connector', targetId: row.id, after: created });
          await announce(trx);
          return created;
        }),
      ).then(settled);
    },

    async list(_actor, gatewayId, query) {
      gateway(gatewayId);
      const page = keysetOf({ list: `${LIST}:${gatewayId}`, ...query });
      const { rows, more } = inOrder(await listConnectors(db, gatewayId, page), page);
      const cursors = cursorsOf(`${LIST}:${gatewayId}`, rows, page, more, (row) => [row.name, row.id]);
      return { items: rows.map(presentConnector), ...(cursors.next && { next_cursor: cursors.next }), ...(cursors.prev && { prev_cursor: cursors.prev }) };
    },

    async get(_actor, gatewayId, id) {
      gateway(gatewayId);
      const row = await findConnector(db, gatewayId, id);
      if (!row) throw new NotFoundError(`no connector with id ${id} on gateway "${gatewayId}"`);
      return presentConnector(row);
    },

    async replace(actor, gatewayId, id, body) {
      gateway(gatewayId);
      const normalized = await normalizeConnector(body);
      const current = await findConnector(db, gatewayId, id);
      if (!current) throw new NotFoundError(`no connector with id ${id} on gateway "${gatewayId}"`);
      // the check runs outside the transaction (it may take 10 s); a write meanwhile is caught below
      const checked = probeChanged(current, body, normalized.auth) ? await statusOf(body, normalized.auth) : undefined;
      return keyed(body, normalized, gatewayId, id, () =>
        db.transaction().execute(async (trx) => {
          const before = await findConnector(trx, gatewayId, id, { lock: true });
          if (!before) throw new NotFoundError(`no connector with id ${id} on gateway "${gatewayId}"`);
          const conflict = conflictOf(body, normalized, await takenKeys(trx, gatewayId, { name: body.name, ...normalized }, id));
          if (conflict) throw conflict;
          const status = checked ?? (probeChanged(before, body, normalized.auth) ? await statusOf(body, normalized.auth) : before.status);
          // origin and source_* are the connector's provenance: an update ignores them (§2)
          const row: ConnectorRow = {
            ...before,
            ...writableFields(body, normalized),
            status,
            updated_at: clock.now(),
          };
          await requireProvider(trx, normalized);
          await updateConnector(trx, row);
          await holdSecrets(trx, row, normalized);
          const after = presentConnector(row);
          await audit.record(trx, { actor, action: 'connector.replace', targetType: 'connector', targetId: id, before: presentConnector(before), after });
          await announce(trx);
          return after;
        }),
      ).then(settled);
    },

    async delete(actor, gatewayId, id) {
      gateway(gatewayId);
      await db.transaction().execute(async (trx) => {
        const row = await findConnector(trx, gatewayId, id, { lock: true });
        if (!row) throw new NotFoundError(`no connector with id ${id} on gateway "${gatewayId}"`);
        await secrets.releaseReferences(trx, { type: CONNECTOR_OWNER_TYPE, id });
        await deleteConnector(trx, id);
        await audit.record(trx, { actor, action: 'connector.delete', targetType: 'connector', targetId: id, before: presentConnector(row) });
        await announce(trx);
      });
      await settled(undefined);
    },
  };
}
