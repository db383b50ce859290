import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { basename, join } from 'node:path';
import type { Clock } from '../../core/clock.js';
import { ConflictError, InvalidInputError, NotFoundError } from '../../core/errors.js';
import type { ClientType } from '../clients/catalog.js';
import type { GroupStore } from '../workloads/groups.js';
import { contentDigest } from './digest.js';
import { snapshotFolder } from './folder.js';
import type { KindSpec } from './kinds.js';
import { readLock, toLockEntry, updateLock } from './lock.js';
import { checkTrust } from './trust.js';
import { exists, placeFolders, removeFolders, RollbackFailedError } from './place.js';
import type { Placement } from './placement.js';
import type { ChainResolver, Fetched, ResolveContext } from './references/resolver.js';
import { checkScope, type ScopeQuery } from './scope.js';
import { sameTarget, type InstallRecord, type RecordStore, type Scope } from './store.js';

export interface InstallRequest extends ScopeQuery {
  name: string;
  version?: string | undefined;
  clients?: string[] | undefined;
  force?: boolean | undefined;
  group?: string | undefined;
  allow_unsigned?: boolean | undefined;
  /** Upgrades only: another signer than the lock file's was allowed. */
  allow_signer_change?: boolean | undefined;
  /** The reference as first asked, when `name` is its pin (a sync reinstalling a lock entry). */
  source?: string | undefined;
  /** The pin the content must have: a tag that moved since is not what the lock file names. */
  digest?: string | undefined;
  /** Plugins: the marketplace `name` is looked up in. */
  marketplace?: string | undefined;
  /** The marketplace `source` was looked up in, when `name` is its pin: recorded, not resolved through. */
  sourceMarketplace?: string | undefined;
}

export interface ListFilter {
  scope?: Scope | undefined;
  client?: string | undefined;
  project_root?: string | undefined;
  group?: string | undefined;
}

export interface ContentPreview {
  name: string;
  description: string;
  license: string;
  version: string;
  files: { path: string; size: number }[];
  /** Skills: the whole SKILL.md; plugins: the raw plugin.json. */
  text: string;
}

export interface InstallService {
  content: (reference: string, marketplace?: string) => Promise<ContentPreview>;
  /** Resolves a reference (a plugin name, with its marketplace) to its pin without installing it (what an upgrade would install). */
  probe: (reference: string, marketplace?: string) => Promise<Omit<Fetched, 'dir'>>;
  install: (request: InstallRequest) => Promise<InstallRecord>;
  list: (filter: ListFilter) => Promise<InstallRecord[]>;
  get: (name: string, query: ScopeQuery) => Promise<InstallRecord>;
  uninstall: (name: string, query: ScopeQuery) => Promise<void>;
  /** A managed install whose lock entry records neither a signer nor `unsigned`: nothing says what to trust. */
  trustUnrecorded: (record: InstallRecord) => Promise<boolean>;
  /** Every folder the record's clients read it from. */
  foldersOf: (record: InstallRecord) => string[];
}

export interface InstallServiceOptions {
  spec: KindSpec;
  records: RecordStore;
  resolver: ChainResolver;
  placement: Placement;
  /** Client types whose application is on this machine (discovery's `installed`). */
  installedClients: () => Promise<ClientType[]>;
  groups: GroupStore;
  /** Where fetched artifacts are unpacked before they are placed. */
  scratchRoot: string;
  clock: Clock;
}

export function createInstallService(options: InstallServiceOptions): InstallService {
  const { spec, records, resolver, placement, groups, clock } = options;

  /** Fetches the reference into a scratch folder, runs `fn` on it, and removes the folder whatever happens. */
  const withFetched = async <T>(reference: string, fn: (fetched: Fetched) => Promise<T>, version?: string, marketplace?: string, pinnedFrom?: ResolveContext['pinnedFrom']): Promise<T> => {
    await mkdir(options.scratchRoot, { recursive: true, mode: 0o700 });
    const scratch = await mkdtemp(join(options.scratchRoot, `${spec.kind}-`));
    try {
      return await fn(await resolver.resolve(reference, { spec, scratch, version, marketplace, pinnedFrom }));
    } finally {
      await rm(scratch, { recursive: true, force: true });
    }
  };

  /** `clients` omitted: the supporting clients installed here; `["all"]`: every supporting client. */
  const selectClients = async (asked: readonly string[] | undefined): Promise<ClientType[]> => {
    const supporting = placement.supporting;
    if (asked === undefined) {
      const installed = new Set(await options.installedClients());
      const found = supporting.filter((client) => installed.has(client));
      if (found.length === 0) throw new InvalidInputError(`no client that takes ${spec.kind} is installed here; name them in clients (${supporting.join(', ')}) or ["all"]`);
      return found;
    }
    if (asked.length === 1 && asked[0] === 'all') return [...supporting];
    const refused = asked.filter((client) => !(supporting as readonly string[]).includes(client));
    if (refused.length > 0 || asked.length === 0) throw new InvalidInputError(`clients ${refused.join(', ') || '[]'} cannot take ${spec.kind}; choose among ${supporting.join(', ')} or ["all"]`);
    return [...new Set(asked)] as ClientType[];
  };

  const find = async (name: string, query: ScopeQuery): Promise<InstallRecord> => {
    const { scope, projectRoot } = await checkScope(query);
    const record = (await records.list()).find((item) => sameTarget(item, name, scope, projectRoot));
    if (record === undefined) throw new NotFoundError(`${spec.singular} ${name} is not installed in ${scope === 'user' ? 'user scope' : `project ${projectRoot}`}`);
    return record;
  };

  const changeGroup = async (group: string, name: string, add: boolean): Promise<void> => {
    await groups.withLock(async () => {
      const found = await groups.read(group);
      if (found === undefined) return;
      const names = (found[spec.kind] ?? []).filter((item) => item !== name);
      await groups.write({ ...found, [spec.kind]: add ? [...names, name].sort() : names });
    });
  };

  /** Adds (or with `add` false removes) the record's entry in the project's lock file. */
  const lockEntry = (projectRoot: string, record: InstallRecord, add = true): Promise<void> =>
    updateLock(projectRoot, spec.kind, (entries) => {
      const others = entries.filter((entry) => entry.name !== record.name);
      return add ? [...others, toLockEntry(record)] : others;
    });

  const foldersOf = (record: InstallRecord): string[] => [
    ...new Set(placement.folders(record.name, record.clients as ClientType[], { scope: record.scope, projectRoot: record.project_root }).values()),
  ];

  return {
    content: (reference, marketplace) =>
      withFetched(
        reference,
        async (fetched) => {
        const snapshot = await snapshotFolder(fetched.dir, basename(fetched.dir));
        const blocking = spec.validate(snapshot).blocking;
        if (blocking.length > 0) throw new InvalidInputError(`${reference} is not a usable ${spec.singular}: ${blocking.join('; ')}`);
        const identity = spec.identify(snapshot);
        const files = snapshot.entries.filter((entry) => entry.kind === 'file').map((entry) => ({ path: entry.path, size: entry.size }));
        return { name: identity.name, description: identity.description, license: identity.license, version: identity.version, files, text: await readFile(join(fetched.dir, spec.definingFile), 'utf8') };
        },
        undefined,
        marketplace,
      ).catch((error: unknown) => {
        // an ambiguous name conflicts with nothing installed when only previewing: it is a bad query (clarification point 3 (d))
        if (error instanceof ConflictError) throw new InvalidInputError(error.message);
        throw error;
      }),

    probe: (reference, marketplace) =>
      withFetched(
        reference,
        (fetched) => Promise.resolve({ reference: fetched.reference, digest: fetched.digest, tag: fetched.tag, provenance: fetched.provenance, unsigned: fetched.unsigned }),
        undefined,
        marketplace,
      ),

    install: async (request) => {
      const { scope, projectRoot } = await checkScope(request);
      const clients = await selectClients(request.clients);
      // a lock file that cannot be updated is refused before any file is written
      const lock = scope === 'project' ? await readLock(projectRoot) : undefined;
      if (request.group !== undefined && !(await groups.exists(request.group))) throw new NotFoundError(`group ${request.group} not found`);
      const placed = await withFetched(request.name, async (fetched) => {
        if (request.digest !== undefined && fetched.digest !== request.digest) {
          throw new NotFoundError(`${request.name} now names ${fetched.digest}; ${request.digest} is no longer there`);
        }
        const snapshot = await snapshotFolder(fetched.dir, basename(fetched.dir));
        const blocking = spec.validate(snapshot).blocking;
        if (blocking.length > 0) throw new InvalidInputError(`${request.name} is not a usable ${spec.singular}: ${blocking.join('; ')}`);
        const identity = spec.identify(snapshot);
        if (request.version !== undefined && request.version !== identity.version) {
          throw new InvalidInputError(`${request.name} is ${spec.singular} ${identity.name} version ${identity.version || '(none)'}, not ${request.version}`);
        }
        checkTrust(identity.name, lock?.entries(spec.kind).find((entry) => entry.name === identity.name), fetched, {
          allowUnsigned: request.allow_unsigned,
          allowSignerChange: request.allow_signer_change,
        });
        const where = { scope, projectRoot };
        const targets = [...new Set(placement.folders(identity.name, clients, where).values())];
        const marketplace = request.marketplace ?? request.sourceMarketplace;
        const installed: InstallRecord = {
          name: identity.name,
          scope,
          project_root: projectRoot,
          clients,
          source: request.source ?? request.name,
          ...(marketplace !== undefined && { marketplace }),
          reference: fetched.reference,
          digest: fetched.digest,
          tag: fetched.tag,
          content_digest: await contentDigest(fetched.dir),
          installed_at: clock.now().toISOString(),
          status: 'installed',
          group: request.group ?? '',
          managed: scope === 'project',
          metadata: { author: identity.author, description: identity.description, license: identity.license, name: identity.name, version: identity.version, tags: identity.tags },
          components: spec.components(snapshot),
          provenance: fetched.provenance,
          unsigned: fetched.unsigned,
          ...(fetched.signature !== undefined && { signature: fetched.signature }),
        };
        return records.withLock(async () => {
          const all = await records.list();
          const previous = all.find((item) => sameTarget(item, identity.name, scope, projectRoot));
          const ours = new Set(previous === undefined ? [] : foldersOf(previous));
          const foreign: string[] = [];
          for (const target of targets) if (!ours.has(target) && (await exists(target))) foreign.push(target);
          if (foreign.length > 0 && request.force !== true) throw new ConflictError(`${foreign.join(', ')} already exists and was not installed by toolyard; pass force to replace it`);
          const others = all.filter((item) => item !== previous);
          await records.write([...others, { ...installed, status: 'pending' }]);
          try {
            await placeFolders(fetched.dir, targets);
          } catch (error) {
            await records.write(error instanceof RollbackFailedError ? [...others, { ...installed, status: 'failed' }] : all);
            throw error;
          }
          // clients the new install no longer targets lose it, so the record stays the whole truth
          const dropped = previous?.clients.filter((client) => !clients.includes(client as ClientType)) ?? [];
          if (previous !== undefined && dropped.length > 0) await placement.unregister?.({ ...previous, clients: dropped });
          await removeFolders([...ours].filter((folder) => !targets.includes(folder)));
          await placement.register?.(installed);
          if (scope === 'project') await lockEntry(projectRoot, installed);
          await records.write([...others, installed]);
          return { installed, previousGroup: previous?.group ?? '' };
        });
      }, request.version, request.marketplace, request.sourceMarketplace !== undefined && request.source !== undefined ? { marketplace: request.sourceMarketplace, name: request.source } : undefined);
      const { installed: record, previousGroup } = placed;
      if (previousGroup !== '' && previousGroup !== record.group) await changeGroup(previousGroup, record.name, false);
      if (record.group !== '') await changeGroup(record.group, record.name, true);
      return record;
    },

    list: async (filter) => {
      const root = filter.project_root;
      return (await records.list())
        .filter((record) => filter.scope === undefined || record.scope === filter.scope)
        .filter((record) => root === undefined || record.project_root === root)
        .filter((record) => filter.client === undefined || record.clients.includes(filter.client))
        .filter((record) => filter.group === undefined || record.group === filter.group)
        .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : a.project_root < b.project_root ? -1 : 1));
    },

    get: find,
    foldersOf,
    trustUnrecorded: async (record) => {
      if (!record.managed || record.scope !== 'project') return false;
      const entry = (await readLock(record.project_root)).entries(spec.kind).find((item) => item.name === record.name);
      return entry !== undefined && entry.provenance === undefined && entry.unsigned === undefined;
    },

    uninstall: async (name, query) => {
      const record = await find(name, query);
      await records.withLock(async () => {
        if (record.scope === 'project') await lockEntry(record.project_root, record, false);
        await placement.unregister?.(record);
        await removeFolders(foldersOf(record));
        await records.write((await records.list()).filter((item) => !sameTarget(item, record.name, record.scope, record.project_root)));
      });
      if (record.group !== '') await changeGroup(record.group, record.name, false);
    },
  };
}
