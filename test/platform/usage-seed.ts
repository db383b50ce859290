import { randomUUID } from 'node:crypto';
import type { Insertable, Kysely } from 'kysely';
import type { PlatformDatabase } from '../../src/platform/db.js';
import type { ChargesTable, UsageEventsTable } from '../../src/platform/usage/tables.js';

/* Charges and usage events written straight into the tables, as the LLM gateway's settlement writes them. */

const DAY_MS = 86_400_000;
const CATALOG = '00000000-0000-4000-8000-0000000000c1';

export interface ChargeSeed {
  at: string;
  usd: string;
  subject?: string;
  scope?: 'user' | 'group';
  subjectId?: string;
  model?: string;
  provider?: string;
  id?: string;
}

export async function seedCharges(db: Kysely<PlatformDatabase>, seeds: readonly ChargeSeed[]): Promise<Insertable<ChargesTable>[]> {
  const rows = seeds.map((seed): Insertable<ChargesTable> => {
    const at = new Date(seed.at);
    const day = Math.floor(at.getTime() / DAY_MS) * DAY_MS;
    const eventId = randomUUID();
    const subject = seed.subject ?? 'alice';
    return {
      id: seed.id ?? randomUUID(),
      event_id: eventId,
      event_time: at,
      scope: seed.scope ?? 'user',
      subject_id: seed.subjectId ?? subject,
      auth_subject: subject,
      charged_usd: seed.usd,
      model: seed.model ?? 'gpt-4o',
      provider: seed.provider ?? 'openai',
      interaction_id: eventId,
      period_start: new Date(day),
      period_end: new Date(day + DAY_MS),
      pricing_catalog_id: CATALOG,
    };
  });
  if (rows.length > 0) await db.insertInto('charges').values(rows).execute();
  return rows;
}

export interface EventSeed {
  at: string;
  subject?: string;
  outcome?: UsageEventsTable['outcome'];
  model?: string;
  id?: string;
}

export async function seedEvents(db: Kysely<PlatformDatabase>, seeds: readonly EventSeed[]): Promise<string[]> {
  const rows = seeds.map((seed) => {
    const at = new Date(seed.at);
    const id = seed.id ?? randomUUID();
    return {
      id,
      event_time: at,
      ingest_time: new Date(at.getTime() + 1500),
      auth_issuer: 'https://issuer.example',
      auth_subject: seed.subject ?? 'alice',
      virtual_key_id: null,
      platform_user_id: null,
      platform_groups: JSON.stringify([]),
      requested_model: seed.model ?? 'gpt-4o',
      model: seed.model ?? 'gpt-4o',
      provider: 'openai',
      route: '/llm/v1/chat/completions',
      outcome: seed.outcome ?? 'delivered',
      upstream_status: seed.outcome === 'blocked_downstream' ? 0 : 200,
      duration_ms: 120,
      raw_usage: JSON.stringify({ prompt_tokens: 10, completion_tokens: 5 }),
      interaction_id: id,
      ai_policy: JSON.stringify({ decision: 'allowed', policies: [] }),
    };
  });
  if (rows.length > 0) await db.insertInto('usage_events').values(rows).execute();
  return rows.map((row) => row.id);
}
