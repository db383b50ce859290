import { formatMoney } from '../money.js';
import type { Charge, UsageEvent } from './schemas.js';
import type { ChargeRow, UsageEventRow } from './store.js';

export function presentCharge(row: ChargeRow): Charge {
  return {
    auth_subject: row.auth_subject,
    charged_usd: formatMoney(row.charged_usd),
    event_id: row.event_id,
    event_time: row.event_time.toISOString(),
    id: row.id,
    interaction_id: row.interaction_id,
    model: row.model,
    period_end: row.period_end.toISOString(),
    period_start: row.period_start.toISOString(),
    pricing_catalog_id: row.pricing_catalog_id,
    provider: row.provider,
    scope: row.scope,
    subject_id: row.subject_id,
  };
}

export function presentUsageEvent(row: UsageEventRow): UsageEvent {
  return {
    ai_policy: row.ai_policy,
    auth_issuer: row.auth_issuer,
    auth_subject: row.auth_subject,
    duration_ms: row.duration_ms,
    event_time: row.event_time.toISOString(),
    id: row.id,
    ingest_time: row.ingest_time.toISOString(),
    interaction_id: row.interaction_id,
    model: row.model,
    outcome: row.outcome,
    platform_groups: row.platform_groups,
    platform_user_id: row.platform_user_id,
    provider: row.provider,
    raw_usage: row.raw_usage,
    requested_model: row.requested_model,
    route: row.route,
    upstream_status: row.upstream_status,
    virtual_key_id: row.virtual_key_id,
  };
}
