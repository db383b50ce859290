import type { Kysely } from 'kysely';
import type { Clock } from '../../core/clock.js';
import { ConflictError, InvalidInputError, NotFoundError, UnavailableError } from '../../core/errors.js';
import type { Ids } from '../../core/ids.js';
import type { AuditTrail } from '../audit/service.js';
import type { PlatformDatabase } from '../db.js';
import { cursorsOf, keysetOf } from '../directory/paging.js';
import type { Page, PageQuery } from '../directory/schemas.js';
import { inOrder } from '../directory/store.js';
import type { Actor } from '../identity/actor.js';
import { seal, type SecretKey } from './cipher.js';
import { MAX_VALUE_BYTES, type CreateManagedSecretBody, type ManagedSecret, type ReplaceManagedSecretBody } from './schemas.js';
import { deleteSecret, findSecret, insertSecret, listSecrets, nameTaken, referencesTo, updateSealed, type SecretRow } from './store.js';

export interface ManagedSecretService {
  create(actor: Actor, body: CreateManagedSecretBody): Promise<ManagedSecret>;
  list(actor: Actor, query: PageQuery): Promise<Page<ManagedSecret>>;
  get(actor: Actor, id: string): Promise<ManagedSecret>;
  replace(actor: Actor, id: string, body: ReplaceManagedSecretBody): Promise<ManagedSecret>;
  delete(actor: Actor, id: string): Promise<void>;
}

export interface ManagedSecretServiceOptions {
  db: Kysely<PlatformDatabase>;
  clock: Clock;
  ids: Ids;
  audit: AuditTrail;
  key: SecretKey;
}

const LIST = 'managed-secrets';

/** The record as the API shows it: never the value, sealed or not. */
const present = (row: SecretRow): ManagedSecret => ({ created_at: row.created_at.toISOString(), id: row.id, name: row.name, updated_at: row.updated_at.toISOString() });

const uniqueViolation = (error: unknown) => typeof error === 'object' && error !== null && (error as { code?: unknown }).code === '23505';
const foreignKeyViolation = (error: unknown) => typeof error === 'object' && error !== null && (error as { code?: unknown }).code === '23503';
const nameConflict = (name: string) => new ConflictError(`a managed secret named "${name}" already exists (names are unique ignoring case)`);

export function createManagedSecretService(options: ManagedSecretServiceOptions): ManagedSecretService {
  const { db, clock, ids, audit, key } = options;

  /** The key that seals a new value, after the value passes its limit. */
  const sealingKey = (value: string): Buffer => {
    const bytes = Buffer.byteLength(value, 'utf8');
    if (bytes > MAX_VALUE_BYTES) throw new InvalidInputError(`value: at most ${String(MAX_VALUE_BYTES)} bytes (64 KiB) of UTF-8; this one has ${String(bytes)}`);
    if (!key.usable) throw new UnavailableError(`managed secrets cannot be stored: ${key.problem}`);
    return key.key;
  };

  return {
    async create(actor, body) {
      const sealWith = sealingKey(body.value);
      const now = clock.now();
      const id = ids.uuid();
      const row: SecretRow = { id, name: body.name, sealed: seal(sealWith, id, body.value), created_at: now, updated_at: now };
      try {
        await db.transaction().execute(async (trx) => {
          if (await nameTaken(trx, body.name)) throw nameConflict(body.name);
          await insertSecret(trx, row);
          await audit.record(trx, { actor, action: 'managed_secret.create', targetType: 'managed_secret', targetId: id, after: present(row) });
        });
      } catch (error) {
        if (uniqueViolation(error)) throw nameConflict(body.name);
        throw error;
      }
      return present(row);
    },

    async list(_actor, query) {
      const page = keysetOf({ list: LIST, ...query });
      const { rows, more } = inOrder(await listSecrets(db, page), page);
      const cursors = cursorsOf(LIST, rows, page, more, (row) => [row.name, row.id]);
      return { items: rows.map(present), ...(cursors.next && { next_cursor: cursors.next }), ...(cursors.prev && { prev_cursor: cursors.prev }) };
    },

    async get(_actor, id) {
      const row = await findSecret(db, id);
      if (!row) throw new NotFoundError(`no managed secret with id ${id}`);
      return present(row);
    },

    async replace(actor, id, body) {
      const sealWith = sealingKey(body.value);
      return db.transaction().execute(async (trx) => {
        const before = await findSecret(trx, id, 'update');
        if (!before) throw new NotFoundError(`no managed secret with id ${id}`);
        const after: SecretRow = { ...before, sealed: seal(sealWith, id, body.value), updated_at: clock.now() };
        await updateSealed(trx, id, Buffer.from(after.sealed), after.updated_at);
        await audit.record(trx, { actor, action: 'managed_secret.replace', targetType: 'managed_secret', targetId: id, before: present(before), after: present(after) });
        return present(after);
      });
    },

    async delete(actor, id) {
      try {
        await db.transaction().execute(async (trx) => {
          const row = await findSecret(trx, id, 'update');
          if (!row) throw new NotFoundError(`no managed secret with id ${id}`);
          const references = await referencesTo(trx, id);
          if (references.length > 0) {
            const users = references.map((reference) => `${reference.owner_type} "${reference.owner_name}" (${reference.owner_id}) as ${reference.field}`);
            throw new ConflictError(`managed secret "${row.name}" is referenced by ${users.join(', ')}; change or delete those first`);
          }
          await deleteSecret(trx, id);
          await audit.record(trx, { actor, action: 'managed_secret.delete', targetType: 'managed_secret', targetId: id, before: present(row) });
        });
      } catch (error) {
        if (foreignKeyViolation(error)) throw new ConflictError(`managed secret ${id} is referenced by a record written meanwhile; list its users again`);
        throw error;
      }
    },
  };
}
