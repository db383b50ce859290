import type { Kysely } from 'kysely';
import { InvalidInputError, NotFoundError, UnavailableError } from '../../core/errors.js';
import type { PlatformDatabase } from '../db.js';
import { open, type SecretKey } from './cipher.js';
import { deleteReferences, findSecret, insertReferences } from './store.js';

/** A record of another feature that names managed secrets; `type` is how people call it (`identity provider`). */
export interface SecretOwner {
  type: string;
  id: string;
  name: string;
}

/** One reference: where in the owner it sits, as its API names it, and the secret it names. */
export interface SecretReference {
  field: string;
  managedSecretId: string;
}

/** What other features (identity providers, connectors, the connector gateway) use managed secrets through. */
export interface ManagedSecrets {
  /** The value, for sending upstream; 404 when the secret is gone, 503 when the key is unusable. */
  reveal(id: string): Promise<string>;
  exists(id: string): Promise<boolean>;
  /**
   * Makes `references` the owner's, inside the owner's write: each must name an existing secret (else a
   * 400 naming the field), and none of them can be deleted while the owner keeps it.
   */
  holdReferences(trx: Kysely<PlatformDatabase>, owner: SecretOwner, references: readonly SecretReference[]): Promise<void>;
  /** Drops the owner's references (it is being deleted). */
  releaseReferences(trx: Kysely<PlatformDatabase>, owner: Pick<SecretOwner, 'type' | 'id'>): Promise<void>;
}

export function createManagedSecrets(options: { db: Kysely<PlatformDatabase>; key: SecretKey }): ManagedSecrets {
  const { db, key } = options;
  return {
    async reveal(id) {
      const row = await findSecret(db, id);
      if (!row) throw new NotFoundError(`no managed secret with id ${id}`);
      if (!key.usable) throw new UnavailableError(`managed secret "${row.name}" cannot be read: ${key.problem}`);
      try {
        return open(key.key, row.id, row.sealed);
      } catch {
        throw new UnavailableError(`managed secret "${row.name}" cannot be decrypted with the key in secrets.keyFile (was the key changed?); replace its value`);
      }
    },
    async exists(id) {
      return (await findSecret(db, id)) !== undefined;
    },
    async holdReferences(trx, owner, references) {
      for (const reference of references) {
        // the share lock makes a concurrent delete of the secret wait for this write, and then see the reference
        if (!(await findSecret(trx, reference.managedSecretId, 'share'))) {
          throw new InvalidInputError(`${reference.field}.managed_secret_id: no managed secret with id ${reference.managedSecretId}`);
        }
      }
      await deleteReferences(trx, owner.type, owner.id);
      await insertReferences(
        trx,
        references.map((reference) => ({ owner_type: owner.type, owner_id: owner.id, owner_name: owner.name, field: reference.field, managed_secret_id: reference.managedSecretId })),
      );
    },
    async releaseReferences(trx, owner) {
      await deleteReferences(trx, owner.type, owner.id);
    },
  };
}
