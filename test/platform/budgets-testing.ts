import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { Registry } from 'prom-client';
import { createDatabase, type Database } from '../../src/core/db/database.js';
import { migrateToLatest } from '../../src/core/db/migrator.js';
import { silentLogger } from '../../src/core/telemetry/logger.js';
import type { AdmissionRequest, BudgetLedger } from '../../src/platform/budgets/ledger.js';
import { createBudgetLedger, type BudgetLedgerOptions } from '../../src/platform/budgets/ledger-service.js';
import { createMemoryLedger, type MemoryBudgetLedger, type MemoryLedgerOptions } from '../../src/platform/budgets/memory-ledger.js';
import type { PlatformDatabase } from '../../src/platform/db.js';
import { PLATFORM_MIGRATION_TABLE, platformMigrations } from '../../src/platform/migrations/index.js';
import { Money } from '../../src/platform/money.js';
import type { UsageEvent } from '../../src/platform/usage/schemas.js';

export async function migrated(database: Database<PlatformDatabase>): Promise<Kysely<PlatformDatabase>> {
  await migrateToLatest({ db: database.db as Kysely<unknown>, migrations: platformMigrations, table: PLATFORM_MIGRATION_TABLE });
  return database.db;
}

/** Another connection pool to the same PostgreSQL database: what another replica has. */
export function openReplica(url: string): Promise<Database<PlatformDatabase>> {
  return createDatabase<PlatformDatabase>({ url, maxConnections: 3 });
}

/** The options every test ledger shares: a real clock and ids, hard enforcement, no budget required. */
function ledgerOptions(db: Kysely<PlatformDatabase>, metrics: Registry) {
  return {
    db,
    clock: { now: () => new Date() },
    ids: { uuid: () => randomUUID() },
    logger: silentLogger,
    metrics,
    enforcement: 'hard' as const,
    requireBudget: false,
    upstreamTimeoutMs: 600_000,
  };
}

export function testLedger(db: Kysely<PlatformDatabase>, options: Partial<BudgetLedgerOptions> = {}): { ledger: BudgetLedger; metrics: Registry } {
  const metrics = options.metrics ?? new Registry();
  return { ledger: createBudgetLedger({ ...ledgerOptions(db, metrics), ...options }), metrics };
}

/** The in-memory ledger of the embedded database's single replica. */
export function testMemoryLedger(db: Kysely<PlatformDatabase>, options: Partial<MemoryLedgerOptions> = {}): { ledger: MemoryBudgetLedger; metrics: Registry } {
  const metrics = options.metrics ?? new Registry();
  return { ledger: createMemoryLedger({ ...ledgerOptions(db, metrics), ...options }), metrics };
}

export async function setLimits(db: Kysely<PlatformDatabase>, scope: 'default' | 'user' | 'group', subjectId: string, day: string | null, month: string | null): Promise<void> {
  await db
    .insertInto('budget_limits')
    .values({ scope, subject_id: subjectId, day_limit_usd: day, month_limit_usd: month })
    .onConflict((conflict) => conflict.columns(['scope', 'subject_id']).doUpdateSet({ day_limit_usd: day, month_limit_usd: month }))
    .execute();
}

export function usageEvent(id: string, at: Date, subject: string, overrides: Partial<UsageEvent> = {}): UsageEvent {
  return {
    ai_policy: { decision: 'allowed', policies: [] },
    auth_issuer: 'https://issuer.example',
    auth_subject: subject,
    duration_ms: 0,
    event_time: at.toISOString(),
    id,
    ingest_time: at.toISOString(),
    interaction_id: id,
    model: 'gpt-4o',
    outcome: 'delivered',
    platform_groups: [],
    platform_user_id: null,
    provider: 'openai',
    raw_usage: null,
    requested_model: 'gpt-4o',
    route: '/llm/v1/chat/completions',
    upstream_status: 200,
    virtual_key_id: null,
    ...overrides,
  };
}

export function admission(subject: string, at: Date, maxCost: string, groupIds: string[] = []): AdmissionRequest {
  const eventId = randomUUID();
  return { eventId, at, caller: { subject, groupIds }, maxCost: new Money(maxCost), pendingEvent: usageEvent(eventId, at, subject, { platform_groups: groupIds, outcome: 'upstream_error', upstream_status: 0 }) };
}

export async function cell(db: Kysely<PlatformDatabase>, scope: 'user' | 'group', subjectId: string, period: 'day' | 'month'): Promise<{ used: string; reserved: string } | undefined> {
  const row = await db
    .selectFrom('budget_cells')
    .select(['used_usd', 'reserved_usd'])
    .where('scope', '=', scope)
    .where('subject_id', '=', subjectId)
    .where('period', '=', period)
    .orderBy('ordinal', 'desc')
    .executeTakeFirst();
  return row && { used: new Money(row.used_usd).toFixed(), reserved: new Money(row.reserved_usd).toFixed() };
}
