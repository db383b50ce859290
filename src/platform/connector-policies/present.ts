import { createHash } from 'node:crypto';
import { structuredDocument } from './cedar.js';
import type { ConnectorPolicy } from './schemas.js';
import type { PolicyRow } from './store.js';

/** The policy as the API shows it; a connector without a row has the default (structured, no group). */
export function presentPolicy(connectorId: string, row: PolicyRow | undefined, groups: { id: string; name: string }[]): ConnectorPolicy {
  const mode = row?.mode ?? 'structured';
  return {
    connector_id: connectorId,
    document: mode === 'document' ? (row?.document ?? '') : structuredDocument(connectorId, groups.map((group) => group.id)),
    granted_user_groups: groups.map((group) => ({ id: group.id, name: group.name })),
    mode,
  };
}

/** A strong ETag of what the policy shows, so it moves with any change a reader could see (a group renamed, too). */
export function policyEtag(policy: ConnectorPolicy): string {
  return `"${createHash('sha256').update(JSON.stringify(policy)).digest('hex').slice(0, 32)}"`;
}
