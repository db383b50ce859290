import type { Insertable } from 'kysely';
import type { UsageEvent } from '../usage/schemas.js';
import type { UsageEventsTable } from '../usage/tables.js';

/** A usage event as its row is written. */
export function eventRow(event: UsageEvent): Insertable<UsageEventsTable> {
  return {
    ...event,
    event_time: new Date(event.event_time),
    ingest_time: new Date(event.ingest_time),
    platform_groups: JSON.stringify(event.platform_groups),
    ai_policy: JSON.stringify(event.ai_policy),
    raw_usage: event.raw_usage === null ? null : JSON.stringify(event.raw_usage),
  };
}
