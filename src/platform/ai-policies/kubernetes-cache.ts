import type { PolicyChange, StoredPolicy } from './backend.js';

/**
 * The Kubernetes backend's copy of every AIPolicy, fed by the list+watch and by this replica's own write
 * answers, with a local change sequence the view reads with `changesSince`. A deleted name stays as a
 * tombstone, so a reader that is behind learns of the delete.
 */
export interface PolicyCache {
  /** After a (re)list: every object; names missing from it are deleted. */
  replace(policies: readonly StoredPolicy[]): void;
  /** From the watch: always applied (watch events come in order). */
  watched(policy: StoredPolicy): void;
  /** From a write's answer: applied unless the watch has delivered that version already (it may have newer ones since). */
  answered(policy: StoredPolicy): void;
  removed(name: string): void;
  changesSince(position: string | undefined): { changes: PolicyChange[]; position: string };
}

interface Entry {
  sequence: number;
  policy: StoredPolicy | undefined;
}

/** How many watched versions are remembered to recognise a write's answer that the watch has overtaken. */
const SEEN_VERSIONS = 4096;

export function createPolicyCache(): PolicyCache {
  const entries = new Map<string, Entry>();
  const seen = new Set<string>();
  let sequence = 0;

  const remember = (policy: StoredPolicy) => {
    seen.add(`${policy.name}@${policy.resourceVersion}`);
    if (seen.size > SEEN_VERSIONS) {
      const oldest = seen.values().next().value;
      if (oldest !== undefined) seen.delete(oldest);
    }
  };
  const put = (policy: StoredPolicy) => {
    if (entries.get(policy.name)?.policy?.resourceVersion === policy.resourceVersion) return;
    entries.set(policy.name, { sequence: ++sequence, policy });
  };
  const removed = (name: string) => {
    if (entries.get(name)?.policy === undefined) return;
    entries.set(name, { sequence: ++sequence, policy: undefined });
  };

  return {
    replace(policies) {
      const names = new Set(policies.map((policy) => policy.name));
      for (const name of entries.keys()) if (!names.has(name)) removed(name);
      for (const policy of policies) {
        remember(policy);
        put(policy);
      }
    },
    watched(policy) {
      remember(policy);
      put(policy);
    },
    answered(policy) {
      if (!seen.has(`${policy.name}@${policy.resourceVersion}`)) put(policy);
    },
    removed,
    changesSince(position) {
      const after = position === undefined ? 0 : Number(position);
      const changes = [...entries.entries()]
        .filter(([, entry]) => entry.sequence > after && (position !== undefined || entry.policy !== undefined))
        .sort(([, left], [, right]) => left.sequence - right.sequence)
        .map(([name, entry]): PolicyChange => (entry.policy ? { kind: 'upsert', policy: entry.policy } : { kind: 'delete', name }));
      return { changes, position: String(sequence) };
    },
  };
}
