import { NotFoundError } from '../../core/errors.js';
import type { InstallService } from './installs.js';
import type { KindSpec } from './kinds.js';
import { checkLockWritable, readLock, type LockEntry } from './lock.js';
import { parseGitReference } from './references/git.js';
import { parseOciName } from './references/oci-name.js';
import { checkScope } from './scope.js';
import { failureReason } from './sync.js';
import { provenanceSigner, recordedSigner } from './trust.js';

export interface UpgradeRequest {
  project_root: string;
  names?: string[] | undefined;
  preview?: boolean | undefined;
  fail_on_changes?: boolean | undefined;
  allow_ref_change?: boolean | undefined;
  allow_signer_change?: boolean | undefined;
  clients?: string[] | undefined;
}

export type UpgradeStatus = 'not-upgradable' | 'up-to-date' | 'ref-change-blocked' | 'signer-change-blocked' | 'upgrade-available' | 'upgraded' | 'failed';

export interface UpgradeOutcome {
  name: string;
  status: UpgradeStatus;
  old_digest: string;
  new_digest: string;
  new_resolved_reference: string;
  new_signer_identity: string;
  trust_anchor_changed: boolean;
  reason: string;
  error: string;
}

export interface UpgradeService {
  upgrade: (request: UpgradeRequest) => Promise<{ outcomes: UpgradeOutcome[] }>;
}

/** A source that names one exact content: `@sha256:…` or a git commit. */
function pinned(source: string): boolean {
  const git = parseGitReference(source);
  if (git !== undefined) return /^[0-9a-f]{40}$/.test(git.ref);
  const oci = parseOciName(source);
  return oci !== undefined && oci.digest !== '';
}

/** The repository a resolved reference comes from, without its tag, commit or digest: a tag that moves stays in it. */
function repositoryOf(reference: string): string {
  const git = parseGitReference(reference);
  if (git !== undefined) return `git://${git.host}/${git.path}#${git.subdir}`;
  const oci = parseOciName(reference);
  return oci === undefined ? reference : `${oci.host}/${oci.repository}`;
}

/**
 * Moves a project's lock entries to what their sources name now (clarification point 12): one
 * outcome per entry, each refused or installed on its own; a failure never stops the others.
 */
export function createUpgradeService(options: { spec: KindSpec; installs: InstallService }): UpgradeService {
  const { spec, installs } = options;

  const upgradeOne = async (entry: LockEntry, request: UpgradeRequest, projectRoot: string): Promise<UpgradeOutcome> => {
    const outcome: UpgradeOutcome = {
      name: entry.name,
      status: 'up-to-date',
      old_digest: entry.digest,
      new_digest: '',
      new_resolved_reference: '',
      new_signer_identity: '',
      trust_anchor_changed: false,
      reason: '',
      error: '',
    };
    if (pinned(entry.source)) return { ...outcome, status: 'not-upgradable' };
    try {
      // a marketplace plugin is looked up again by name there (after renames), not at the commit it was found at
      const fresh = await installs.probe(entry.source, entry.marketplace);
      const signer = provenanceSigner(fresh.provenance) ?? '';
      const recorded = recordedSigner(entry) ?? '';
      const found = { ...outcome, new_digest: fresh.digest, new_resolved_reference: fresh.reference, new_signer_identity: fresh.provenance?.signer_identity ?? '', trust_anchor_changed: signer !== recorded };
      if (fresh.digest === entry.digest) return { ...found, status: 'up-to-date' };
      if (repositoryOf(fresh.reference) !== repositoryOf(entry.resolvedReference) && request.allow_ref_change !== true) return { ...found, status: 'ref-change-blocked' };
      if (recorded !== '' && signer !== recorded && request.allow_signer_change !== true) return { ...found, status: 'signer-change-blocked' };
      if (request.preview === true || request.fail_on_changes === true) return { ...found, status: 'upgrade-available' };
      await installs.install({
        // through the marketplace again, so a strict: false listing still supplies the plugin's manifest
        ...(entry.marketplace === undefined ? { name: fresh.reference } : { name: entry.source, marketplace: entry.marketplace }),
        source: entry.source,
        // what was checked above is what gets installed, even if the tag moves again meanwhile
        digest: fresh.digest,
        scope: 'project',
        project_root: projectRoot,
        clients: request.clients ?? entry.clients,
        force: true,
        // the signer change was allowed above; an unsigned upgrade over a signed entry is such a change
        allow_signer_change: request.allow_signer_change,
      });
      return { ...found, status: 'upgraded' };
    } catch (error) {
      return { ...outcome, status: 'failed', reason: failureReason(error), error: (error as Error).message };
    }
  };

  return {
    upgrade: async (request) => {
      const { projectRoot } = await checkScope({ scope: 'project', project_root: request.project_root });
      const lock = await readLock(projectRoot, { strictVersion: true });
      const entries = lock.entries(spec.kind);
      const unknown = (request.names ?? []).filter((name) => !entries.some((entry) => entry.name === name));
      if (unknown.length > 0) throw new NotFoundError(`${unknown.join(', ')} ${unknown.length === 1 ? 'is' : 'are'} not in ${lock.path}`);
      if (request.preview !== true && request.fail_on_changes !== true) await checkLockWritable(lock, projectRoot);
      const chosen = request.names === undefined ? entries : entries.filter((entry) => request.names?.includes(entry.name));
      const outcomes: UpgradeOutcome[] = [];
      for (const entry of chosen) outcomes.push(await upgradeOne(entry, request, projectRoot));
      return { outcomes };
    },
  };
}
