import type { Kysely } from 'kysely';
import type { Clock } from '../../core/clock.js';
import type { ChangeFeed } from '../../core/db/change-feed.js';
import { ConflictError, NotFoundError, PayloadTooLargeError, PreconditionFailedError, UnprocessableError } from '../../core/errors.js';
import type { AuditTrail } from '../audit/service.js';
import { TOPICS } from '../context.js';
import type { PlatformDatabase } from '../db.js';
import { matches } from '../directory/service.js';
import type { Actor } from '../identity/actor.js';
import { documentProblems, MAX_DOCUMENT_BYTES, structuredDocument } from './cedar.js';
import { policyEtag, presentPolicy } from './present.js';
import type { ConnectorPolicy, PolicyDocumentBody, PolicyGroupsBody } from './schemas.js';
import * as store from './store.js';
import type { PolicyMode } from './tables.js';

/** The most groups one policy grants (413 above). */
export const MAX_GROUPS = 1000;

export interface VersionedPolicy {
  policy: ConnectorPolicy;
  etag: string;
}

export interface ConnectorPolicyService {
  get(actor: Actor, connectorId: string): Promise<VersionedPolicy>;
  /** `ifMatch` is required (the routes answer 428 without it). */
  replaceGroups(actor: Actor, connectorId: string, body: PolicyGroupsBody, ifMatch: string): Promise<VersionedPolicy>;
  revokeGroup(actor: Actor, connectorId: string, groupId: string, ifMatch: string | undefined): Promise<VersionedPolicy>;
  setDocument(actor: Actor, connectorId: string, body: PolicyDocumentBody, ifMatch: string | undefined): Promise<VersionedPolicy>;
  switchMode(actor: Actor, connectorId: string, mode: PolicyMode, ifMatch: string | undefined): Promise<VersionedPolicy>;
}

export interface ConnectorPolicyServiceOptions {
  db: Kysely<PlatformDatabase>;
  clock: Clock;
  audit: AuditTrail;
  changes: ChangeFeed;
  /** Runs after each committed write (this replica's decisions forget the policy at once). */
  afterWrite: () => void;
}

type Groups = { id: string; name: string }[];

/**
 * A write's own rule, given the locked policy as it stands: it changes the rows, or answers false when
 * nothing is to change (a switch to the mode in force), or throws the rule's error.
 */
type Change = (trx: Kysely<PlatformDatabase>, current: { row: store.PolicyRow; groups: Groups }) => Promise<boolean>;

const notFound = (connectorId: string) => new NotFoundError(`no connector with id ${connectorId}`);

export function createConnectorPolicyService(options: ConnectorPolicyServiceOptions): ConnectorPolicyService {
  const { db, clock, audit, changes } = options;

  const versioned = (policy: ConnectorPolicy): VersionedPolicy => ({ policy, etag: policyEtag(policy) });

  const write = async (actor: Actor, connectorId: string, ifMatch: string | undefined, action: string, change: Change): Promise<VersionedPolicy> => {
    const answer = await db.transaction().execute(async (trx) => {
      // the share lock on the connector makes its delete wait for this write (and then drop the policy)
      if (!(await store.findPolicyConnector(trx, connectorId, { lock: true }))) throw notFound(connectorId);
      const now = clock.now();
      const row = await store.lockPolicy(trx, connectorId, now);
      const groups = await store.grantedGroups(trx, connectorId);
      const before = versioned(presentPolicy(connectorId, row, groups));
      if (ifMatch !== undefined && !matches(ifMatch, before.etag)) throw new PreconditionFailedError('If-Match: the policy changed since you read it; GET it again', { etag: before.etag });
      if (!(await change(trx, { row, groups }))) return { result: before, changed: false };
      const after = versioned(presentPolicy(connectorId, await store.findPolicy(trx, connectorId), await store.grantedGroups(trx, connectorId)));
      await audit.record(trx, { actor, action, targetType: 'connector_policy', targetId: connectorId, before: before.policy, after: after.policy });
      await changes.publish(trx as never, TOPICS.connectorPolicies);
      return { result: after, changed: true };
    });
    if (answer.changed) options.afterWrite();
    return answer.result;
  };

  const structuredOnly = (row: store.PolicyRow, doing: string) => {
    if (row.mode === 'document') throw new ConflictError(`the policy is in document mode, where its groups are frozen; ${doing} needs structured mode (POST …/policy/structured-mode) or a new document`);
  };

  return {
    async get(_actor, connectorId) {
      if (!(await store.findPolicyConnector(db, connectorId))) throw notFound(connectorId);
      const [row, groups] = await Promise.all([store.findPolicy(db, connectorId), store.grantedGroups(db, connectorId)]);
      return versioned(presentPolicy(connectorId, row, groups));
    },

    async replaceGroups(actor, connectorId, body, ifMatch) {
      const wanted = [...new Set(body.group_ids.map((id) => id.toLowerCase()))];
      // the size is refused before anything is looked up
      if (wanted.length > MAX_GROUPS) throw new PayloadTooLargeError(`group_ids: ${String(wanted.length)} groups; a policy grants at most ${String(MAX_GROUPS)}`);
      return write(actor, connectorId, ifMatch, 'connector_policy.groups.replace', async (trx, { row }) => {
        structuredOnly(row, 'replacing the granted groups');
        const known = await store.existingGroups(trx, wanted);
        const unknown = wanted.filter((id) => !known.has(id));
        if (unknown.length > 0) throw new UnprocessableError(`group_ids: not a directory group: ${unknown.slice(0, 10).join(', ')}${unknown.length > 10 ? ` (and ${String(unknown.length - 10)} more)` : ''}`);
        await store.replaceGroups(trx, connectorId, wanted);
        await store.writePolicy(trx, connectorId, { mode: 'structured', document: null, now: clock.now() });
        return true;
      });
    },

    async revokeGroup(actor, connectorId, groupId, ifMatch) {
      return write(actor, connectorId, ifMatch, 'connector_policy.groups.revoke', async (trx, { row }) => {
        structuredOnly(row, 'revoking a group');
        if (!(await store.removeGroup(trx, connectorId, groupId))) throw new NotFoundError(`group ${groupId} is not granted by the policy of connector ${connectorId}`);
        await store.writePolicy(trx, connectorId, { mode: 'structured', document: null, now: clock.now() });
        return true;
      });
    },

    async setDocument(actor, connectorId, body, ifMatch) {
      const bytes = Buffer.byteLength(body.document, 'utf8');
      if (bytes > MAX_DOCUMENT_BYTES) throw new PayloadTooLargeError(`document: ${String(bytes)} bytes; a policy document holds at most ${String(MAX_DOCUMENT_BYTES)} bytes (64 KiB)`);
      return write(actor, connectorId, ifMatch, 'connector_policy.document.set', async (trx, { row }) => {
        if (row.mode === 'structured') throw new ConflictError('the policy is in structured mode; switch it to document mode first (POST …/policy/document-mode)');
        const problems = documentProblems(body.document);
        if (problems.length > 0) throw new UnprocessableError(`document: ${problems.join('; ')}`);
        await store.writePolicy(trx, connectorId, { mode: 'document', document: body.document, now: clock.now() });
        return true;
      });
    },

    async switchMode(actor, connectorId, mode, ifMatch) {
      return write(actor, connectorId, ifMatch, `connector_policy.mode.${mode}`, async (trx, { row, groups }) => {
        if (row.mode === mode) return false;
        // to document mode the text starts as the structured one; back to structured it is generated again
        const document = mode === 'document' ? structuredDocument(connectorId, groups.map((group) => group.id)) : null;
        await store.writePolicy(trx, connectorId, { mode, document, now: clock.now() });
        return true;
      });
    },
  };
}
