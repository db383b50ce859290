import type { Kysely } from 'kysely';
import type { RegistryDatabase } from '../tables.js';

/** Whether a source or registry exists now, whoever may see it (the audit log names every refusal). */
export async function resourceExists(db: Kysely<RegistryDatabase>, type: 'source' | 'registry', name: string): Promise<boolean> {
  const row =
    type === 'source'
      ? await db.selectFrom('sources').select('name').where('name', '=', name).executeTakeFirst()
      : await db.selectFrom('registries').select('name').where('name', '=', name).executeTakeFirst();
  return row !== undefined;
}
