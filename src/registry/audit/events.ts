import type { EntryType } from '../tables.js';

/*
 * The audit record and its stable event names. Names and fields are a contract with whoever reads the
 * log (a SIEM, a compliance export): add new names, never rename or reuse one.
 */

export const AUDIT_EVENTS = [
  'source.create',
  'source.update',
  'source.delete',
  'source.sync',
  'registry.create',
  'registry.update',
  'registry.delete',
  'entry.publish',
  'entry.delete',
  'entry.claims.read',
  'entry.claims.update',
  'auth.failure',
  'authz.denied',
] as const;

export type AuditEventName = (typeof AUDIT_EVENTS)[number];

/** success: done (2xx); failure: refused for any other reason (4xx, 5xx, or a 401); denied: a 403. */
export type AuditOutcome = 'success' | 'failure' | 'denied';

export type AuditResourceType = 'source' | 'registry' | EntryType;

export interface AuditRecord {
  /** ISO 8601, UTC. */
  time: string;
  event: AuditEventName;
  outcome: AuditOutcome;
  /** The token's subject; null in anonymous mode and when authentication failed. */
  subject: string | null;
  resourceType: AuditResourceType | null;
  resourceName: string | null;
  requestId: string;
  sourceIp: string;
  /** The entry version, for entry.publish and entry.delete. */
  version?: string;
  /** The HTTP status of the answer. */
  status?: number;
  /** Why a request failed or was denied: fixed texts naming roles and resources, never token values. */
  reason?: string;
  /** Method and route pattern, for authz.denied (the request is no audited operation of its own). */
  route?: string;
}
