import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { ChangeFeed } from '../../core/db/change-feed.js';
import { ConflictError, DomainError, NotFoundError, PreconditionFailedError, UnavailableError } from '../../core/errors.js';
import type { AuditTrail } from '../audit/service.js';
import { TOPICS } from '../context.js';
import type { PlatformDatabase } from '../db.js';
import type { Actor } from '../identity/actor.js';
import { etagOf, ifMatchHolds } from './preconditions.js';
import type { PolicySpec, PolicyStatus } from './schemas.js';
import * as store from './store.js';

/** A policy as a backend keeps it; the service presents it as the Kubernetes-style resource. */
export interface StoredPolicy {
  name: string;
  uid: string;
  resourceVersion: string;
  generation: number;
  /** RFC 3339 with milliseconds. */
  creationTimestamp: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
  spec: PolicySpec;
  status: PolicyStatus;
  /** Set on a Kubernetes object held by finalizers: it is listed, not enforced (section 2.5). */
  deletionTimestamp?: string;
  deletionGracePeriodSeconds?: number;
}

/** What a write stores: everything but the resource version, which the backend draws. */
export type PolicyWrite = Omit<StoredPolicy, 'resourceVersion'>;

/** Who writes, for the audit record (the actor carries the request id). */
export interface WriteNote {
  actor: Actor;
  action: 'ai_policy.create' | 'ai_policy.patch' | 'ai_policy.delete';
}

export type PolicyChange = { kind: 'upsert'; policy: StoredPolicy } | { kind: 'delete'; name: string };

/**
 * Where AI policies live: the platform's database, or AIPolicy custom resources in Kubernetes.
 * Each write checks `If-Match` against the stored version (404 first, then 412) and audits itself.
 */
export interface AiPolicyBackend {
  get(name: string): Promise<StoredPolicy | undefined>;
  /** 409 when the name is taken. */
  create(policy: PolicyWrite, note: WriteNote): Promise<StoredPolicy>;
  /** `change` gets the stored policy and answers its next state, or undefined when nothing changes. */
  update(name: string, ifMatch: string, change: (current: StoredPolicy) => PolicyWrite | undefined, note: WriteNote): Promise<StoredPolicy>;
  delete(name: string, ifMatch: string, note: WriteNote): Promise<void>;
  /** Changes after `position` (from the start when undefined), and the position to ask from next. */
  changesSince(position: string | undefined): Promise<{ changes: PolicyChange[]; position: string | undefined }>;
  /** Runs `handler` when another replica (or this one) may have changed a policy. */
  onChange(handler: () => void): void;
  /** The key page tokens are signed with, the same on every replica. */
  pageTokenKey(): Promise<Buffer>;
}

export interface DatabaseBackendOptions {
  db: Kysely<PlatformDatabase>;
  audit: AuditTrail;
  changes: ChangeFeed;
}

const CONNECTION_CODES = /^(08|57P|53300)|^E(CONNREFUSED|CONNRESET|TIMEDOUT|NOTFOUND|PIPE|HOSTUNREACH)$/;

/** A failure to reach the database is the contract's 503; anything else stays what it is. */
function unreachable(error: unknown): boolean {
  if (error instanceof DomainError || !(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && CONNECTION_CODES.test(code)) return true;
  return /connection terminated|timeout exceeded when trying to connect|pglite is closed|driver has already been destroyed|connect ECONNREFUSED/i.test(error.message);
}

async function guarded<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (unreachable(error)) throw new UnavailableError('the AI policy store cannot be reached; try again shortly');
    throw error;
  }
}

const fromRow = (row: store.PolicyRow): StoredPolicy => ({
  name: row.name,
  uid: row.uid,
  resourceVersion: String(row.resource_version),
  generation: Number(row.generation),
  creationTimestamp: row.creation_timestamp.toISOString(),
  labels: row.labels,
  annotations: row.annotations,
  spec: row.spec as PolicySpec,
  status: row.status as PolicyStatus,
});

const toValues = (policy: PolicyWrite, resourceVersion: string) => ({
  name: policy.name,
  uid: policy.uid,
  resource_version: resourceVersion,
  generation: policy.generation,
  creation_timestamp: new Date(policy.creationTimestamp),
  gateway_name: policy.spec.gatewayRef.name,
  labels: policy.labels,
  annotations: policy.annotations,
  spec: policy.spec,
  status: policy.status,
});

const notFound = (name: string) => new NotFoundError(`no AI policy named "${name}"`);
const stale = (current: StoredPolicy) =>
  new PreconditionFailedError(`If-Match: the AI policy "${current.name}" changed since you read it (now ${etagOf(current.resourceVersion)}); GET it again`, { etag: etagOf(current.resourceVersion) });

/** The database backend: rows in ai_policies, versions from one sequence, news through the change feed. */
export function createDatabaseBackend(options: DatabaseBackendOptions): AiPolicyBackend {
  const { db, audit, changes } = options;

  const write = <T>(work: (trx: Kysely<PlatformDatabase>) => Promise<T>) =>
    guarded(() =>
      db.transaction().execute(async (trx) => {
        await store.lockWrites(trx);
        return work(trx);
      }),
    );

  return {
    get: (name) => guarded(async () => {
      const row = await store.findPolicy(db, name);
      return row && fromRow(row);
    }),
    create: (policy, note) =>
      write(async (trx) => {
        const resourceVersion = await store.nextResourceVersion(trx);
        if (!(await store.insertPolicy(trx, toValues(policy, resourceVersion)))) throw new ConflictError(`an AI policy named "${policy.name}" already exists`);
        const stored = { ...policy, resourceVersion };
        await audit.record(trx, { actor: note.actor, action: note.action, targetType: 'ai_policy', targetId: policy.name, after: stored });
        await changes.publish(trx as never, TOPICS.aiPolicies);
        return stored;
      }),
    update: (name, ifMatch, change, note) =>
      write(async (trx) => {
        const row = await store.findPolicy(trx, name, { lock: true });
        if (!row) throw notFound(name);
        const current = fromRow(row);
        if (!ifMatchHolds(ifMatch, current.resourceVersion)) throw stale(current);
        const next = change(current);
        if (!next) return current;
        const resourceVersion = await store.nextResourceVersion(trx);
        await store.updatePolicy(trx, toValues(next, resourceVersion));
        const stored = { ...next, resourceVersion };
        await audit.record(trx, { actor: note.actor, action: note.action, targetType: 'ai_policy', targetId: name, before: current, after: stored });
        await changes.publish(trx as never, TOPICS.aiPolicies);
        return stored;
      }),
    delete: (name, ifMatch, note) =>
      write(async (trx) => {
        const row = await store.findPolicy(trx, name, { lock: true });
        if (!row) throw notFound(name);
        const current = fromRow(row);
        if (!ifMatchHolds(ifMatch, current.resourceVersion)) throw stale(current);
        await store.deletePolicy(trx, name, await store.nextResourceVersion(trx));
        await audit.record(trx, { actor: note.actor, action: note.action, targetType: 'ai_policy', targetId: name, before: current });
        await changes.publish(trx as never, TOPICS.aiPolicies);
      }),
    changesSince: (position) =>
      guarded(async () => {
        const { rows, deletions } = await store.changesSince(db, position);
        const events = [
          ...rows.map((row) => ({ version: BigInt(row.resource_version), change: { kind: 'upsert' as const, policy: fromRow(row) } })),
          ...deletions.map((deletion) => ({ version: BigInt(deletion.resource_version), change: { kind: 'delete' as const, name: deletion.name } })),
        ].sort((left, right) => (left.version < right.version ? -1 : left.version > right.version ? 1 : 0));
        const last = events.at(-1);
        return { changes: events.map((event) => event.change), position: last ? String(last.version) : (position ?? '0') };
      }),
    onChange: (handler) => changes.subscribe(TOPICS.aiPolicies, handler),
    pageTokenKey: () => sharedPageTokenKey(db),
  };
}

/** The page token key in the platform database, whichever backend keeps the policies: every replica reads the same. */
export function sharedPageTokenKey(db: Kysely<PlatformDatabase>): Promise<Buffer> {
  return guarded(async () => Buffer.from(await store.sharedPageTokenKey(db, randomBytes(32).toString('base64')), 'base64'));
}
