import { DomainError } from '../../core/errors.js';
import { checkScope } from './scope.js';
import { contentDigest } from './digest.js';
import type { InstallService } from './installs.js';
import type { KindSpec } from './kinds.js';
import { checkLockWritable, readLock, toLockEntry, updateLock, type LockEntry } from './lock.js';
import { exists } from './place.js';
import { pinnedReference } from './references/oci.js';
import { SignatureInvalidError } from './signature-format.js';
import type { TrustSource } from './trusted-root.js';
import type { InstallRecord, RecordStore } from './store.js';
import { provenanceSigner, recordedSigner, SignerMismatchError, UnsignedRejectedError } from './trust.js';

export interface SyncRequest {
  project_root: string;
  clients?: string[] | undefined;
  prune?: boolean | undefined;
  check?: boolean | undefined;
  adopt?: boolean | undefined;
}

export interface SyncFailure {
  name: string;
  reason: string;
  error: string;
}

export interface SyncResult {
  already_current: string[];
  drifted: string[];
  failed: SyncFailure[];
  installed: string[];
  missing: string[];
  never_managed: string[];
  pruned: string[];
  removed_from_lock: string[];
}

/** The `reason` of clarification point 11 for an error met while reinstalling. */
export function failureReason(error: unknown): string {
  if (error instanceof SignatureInvalidError) return 'signature-invalid';
  if (error instanceof SignerMismatchError) return 'signer-mismatch';
  if (error instanceof UnsignedRejectedError) return 'unsigned-rejected';
  if (!(error instanceof DomainError)) return 'unknown';
  if (error.status === 401 || error.status === 403) return 'auth-required';
  if (error.status === 404) return 'digest-missing';
  if (error.status === 400) return 'validation-rejected';
  if (error.status === 429 || error.status >= 500) return 'registry-unreachable';
  return 'unknown';
}

export interface SyncService {
  sync: (request: SyncRequest) => Promise<SyncResult>;
}

/**
 * Makes a project's installed skills or plugins match its lock file. Current entries are checked
 * on disk only (nothing is contacted); others are reinstalled at their pin, never re-resolved from
 * their source, so a project copied elsewhere gets exactly the same files.
 */
export function createSyncService(options: { spec: KindSpec; records: RecordStore; installs: InstallService; trust: TrustSource }): SyncService {
  const { spec, records, installs } = options;

  /** Whether the record's signer is the entry's, and its stored bundle still verifies (with nothing contacted). */
  const isTrusted = async (record: InstallRecord, entry: LockEntry): Promise<boolean> => {
    const signer = provenanceSigner(record.provenance);
    const recorded = recordedSigner(entry);
    if (recorded !== undefined && signer !== recorded) return false;
    if (record.signature === undefined) return signer === undefined;
    const { verifyStoredSignature } = await import('./signatures.js');
    try {
      return provenanceSigner(verifyStoredSignature(record.signature, record.digest, record.name, { trust: await options.trust() })) === signer;
    } catch {
      return false;
    }
  };

  const isCurrent = async (record: InstallRecord, entry: LockEntry): Promise<boolean> => {
    if (record.digest !== entry.digest || record.status !== 'installed' || !(await isTrusted(record, entry))) return false;
    for (const folder of installs.foldersOf(record)) {
      if (!(await exists(folder)) || (await contentDigest(folder)) !== entry.contentDigest) return false;
    }
    return true;
  };

  return {
    sync: async (request) => {
      const { projectRoot } = await checkScope({ scope: 'project', project_root: request.project_root });
      const lock = await readLock(projectRoot, { strictVersion: true });
      const check = request.check === true;
      if (!check) await checkLockWritable(lock, projectRoot);
      const result: SyncResult = { already_current: [], drifted: [], failed: [], installed: [], missing: [], never_managed: [], pruned: [], removed_from_lock: [] };
      const entries = new Map(lock.entries(spec.kind).map((entry) => [entry.name, entry]));
      const ours = (await records.list()).filter((record) => record.scope === 'project' && record.project_root === projectRoot);
      const recorded = new Map(ours.map((record) => [record.name, record]));
      const adopted: LockEntry[] = [];
      for (const name of [...new Set([...entries.keys(), ...recorded.keys()])].sort()) {
        const entry = entries.get(name);
        const record = recorded.get(name);
        if (entry === undefined && record !== undefined) {
          if (!record.managed) {
            result.never_managed.push(name);
            if (request.adopt === true && !check) adopted.push(toLockEntry(record));
            continue;
          }
          result.removed_from_lock.push(name);
          if (request.prune === true && !check) {
            await installs.uninstall(name, { scope: 'project', project_root: projectRoot });
            result.pruned.push(name);
          }
          continue;
        }
        if (entry === undefined) continue;
        if (record !== undefined && (await isCurrent(record, entry))) {
          result.already_current.push(name);
          continue;
        }
        (record === undefined ? result.missing : result.drifted).push(name);
        if (check) continue;
        try {
          await installs.install({
            name: pinnedReference(entry.resolvedReference, entry.digest),
            source: entry.source,
            sourceMarketplace: entry.marketplace,
            digest: entry.digest,
            scope: 'project',
            project_root: projectRoot,
            clients: request.clients ?? entry.clients,
            // the lock file is the owner of these folders: what is there now is drift, not someone else's work
            force: true,
          });
          result.installed.push(name);
        } catch (error) {
          result.failed.push({ name, reason: failureReason(error), error: (error as Error).message });
        }
      }
      if (adopted.length > 0) {
        await updateLock(projectRoot, spec.kind, (current) => [...current, ...adopted]);
        await records.withLock(async () => {
          const names = new Set(adopted.map((entry) => entry.name));
          await records.write((await records.list()).map((item) => (item.scope === 'project' && item.project_root === projectRoot && names.has(item.name) ? { ...item, managed: true } : item)));
        });
      }
      return result;
    },
  };
}
