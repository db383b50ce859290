import type { Kysely } from 'kysely';
import type { Clock } from '../../core/clock.js';
import { ConflictError, NotFoundError } from '../../core/errors.js';
import type { Ids } from '../../core/ids.js';
import type { AuditTrail } from '../audit/service.js';
import type { PlatformDatabase } from '../db.js';
import { cursorsOf, keysetOf } from '../directory/paging.js';
import type { Page, PageQuery } from '../directory/schemas.js';
import { inOrder } from '../directory/store.js';
import type { Actor } from '../identity/actor.js';
import { connectorsUsingProvider } from '../connectors/store.js';
import type { ManagedSecrets } from '../secrets/index.js';
import { presentProvider } from './present.js';
import type { IdentityProvider, IdentityProviderBody } from './schemas.js';
import { deleteProvider, findProvider, insertProvider, listProviders, nameTaken, updateProvider, type ProviderRow } from './store.js';
import { normalizeProvider } from './validate.js';

export interface IdentityProviderService {
  create(actor: Actor, body: IdentityProviderBody): Promise<IdentityProvider>;
  list(actor: Actor, query: PageQuery): Promise<Page<IdentityProvider>>;
  get(actor: Actor, id: string): Promise<IdentityProvider>;
  replace(actor: Actor, id: string, body: IdentityProviderBody): Promise<IdentityProvider>;
  delete(actor: Actor, id: string): Promise<void>;
}

export interface IdentityProviderServiceOptions {
  db: Kysely<PlatformDatabase>;
  clock: Clock;
  ids: Ids;
  audit: AuditTrail;
  secrets: ManagedSecrets;
}

const LIST = 'connector-identity-providers';
/** How managed secrets name a provider among the records that use them. */
const OWNER_TYPE = 'identity provider';

const uniqueViolation = (error: unknown) => typeof error === 'object' && error !== null && (error as { code?: unknown }).code === '23505';
const foreignKeyViolation = (error: unknown) => typeof error === 'object' && error !== null && (error as { code?: unknown }).code === '23503';
const nameConflict = (name: string) => new ConflictError(`an identity provider named "${name}" already exists (names are unique ignoring case)`);

export function createIdentityProviderService(options: IdentityProviderServiceOptions): IdentityProviderService {
  const { db, clock, ids, audit, secrets } = options;

  /** A write that may meet a concurrent one of the same name: the unique index has the last word. */
  const named = async <T>(name: string, work: () => Promise<T>): Promise<T> => {
    try {
      return await work();
    } catch (error) {
      if (uniqueViolation(error)) throw nameConflict(name);
      throw error;
    }
  };

  return {
    async create(actor, body) {
      const { config, references } = await normalizeProvider(body);
      const now = clock.now();
      const row: ProviderRow = { id: ids.uuid(), name: body.name, provider_type: body.provider_type, config, source: 'api', created_at: now, updated_at: now };
      return named(body.name, () =>
        db.transaction().execute(async (trx) => {
          if (await nameTaken(trx, body.name)) throw nameConflict(body.name);
          await insertProvider(trx, row);
          await secrets.holdReferences(trx, { type: OWNER_TYPE, id: row.id, name: row.name }, references);
          const created = presentProvider(row);
          await audit.record(trx, { actor, action: 'connector_identity_provider.create', targetType: 'connector_identity_provider', targetId: row.id, after: created });
          return created;
        }),
      );
    },

    async list(_actor, query) {
      const page = keysetOf({ list: LIST, ...query });
      const { rows, more } = inOrder(await listProviders(db, page), page);
      const cursors = cursorsOf(LIST, rows, page, more, (row) => [row.name, row.id]);
      return { items: rows.map(presentProvider), ...(cursors.next && { next_cursor: cursors.next }), ...(cursors.prev && { prev_cursor: cursors.prev }) };
    },

    async get(_actor, id) {
      const row = await findProvider(db, id);
      if (!row) throw new NotFoundError(`no identity provider with id ${id}`);
      return presentProvider(row);
    },

    async replace(actor, id, body) {
      const { config, references } = await normalizeProvider(body);
      return named(body.name, () =>
        db.transaction().execute(async (trx) => {
          const before = await findProvider(trx, id, { lock: true });
          if (!before) throw new NotFoundError(`no identity provider with id ${id}`);
          if (await nameTaken(trx, body.name, id)) throw nameConflict(body.name);
          const row: ProviderRow = { ...before, name: body.name, provider_type: body.provider_type, config, updated_at: clock.now() };
          await updateProvider(trx, row);
          await secrets.holdReferences(trx, { type: OWNER_TYPE, id, name: row.name }, references);
          const after = presentProvider(row);
          await audit.record(trx, { actor, action: 'connector_identity_provider.replace', targetType: 'connector_identity_provider', targetId: id, before: presentProvider(before), after });
          return after;
        }),
      );
    },

    async delete(actor, id) {
      try {
        await db.transaction().execute(async (trx) => {
          const row = await findProvider(trx, id, { lock: true });
          if (!row) throw new NotFoundError(`no identity provider with id ${id}`);
          const users = await connectorsUsingProvider(trx, id);
          if (users.length > 0) {
            const named = users.map((connector) => `connector "${connector.name}" (${connector.id}) of gateway "${connector.gateway_id}"`);
            throw new ConflictError(`identity provider "${row.name}" is used by ${named.join(', ')}; change or delete those first`);
          }
          await secrets.releaseReferences(trx, { type: OWNER_TYPE, id });
          await deleteProvider(trx, id);
          await audit.record(trx, { actor, action: 'connector_identity_provider.delete', targetType: 'connector_identity_provider', targetId: id, before: presentProvider(row) });
        });
      } catch (error) {
        if (foreignKeyViolation(error)) throw new ConflictError(`identity provider ${id} is used by a connector written meanwhile; list the connectors again`);
        throw error;
      }
    },
  };
}
