import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { ConflictError, InvalidInputError, NotFoundError } from '../../core/errors.js';
import type { RuntimePaths } from '../paths.js';
import { BrokenStateFileError, jsonPath, listJsonNames, readStateFile, withFileLock, writeFileAtomic } from '../state/files.js';
import { checkName, isName } from './run-config.js';
import { Group } from './schemas.js';
import type { WorkloadStore } from './store.js';

export const DEFAULT_GROUP = 'default';

/** Group files under `<state>/groups/<name>.json`; `default` exists even before its file is written. */
export interface GroupStore {
  /** Undefined for a group that does not exist; BrokenStateFileError for a file that cannot be used. */
  read: (name: string) => Promise<Group | undefined>;
  exists: (name: string) => Promise<boolean>;
  list: () => Promise<Group[]>;
  write: (group: Group) => Promise<void>;
  delete: (name: string) => Promise<void>;
  /** Serializes group creation and removal across processes. */
  withLock: <T>(fn: () => Promise<T>) => Promise<T>;
}

export interface GroupService {
  list: () => Promise<Group[]>;
  get: (name: string) => Promise<Group>;
  /** ConflictError when it exists. */
  create: (name: string) => Promise<Group>;
  /** Moves the group's workloads to `default`, or deletes them with `withWorkloads`; `default` is refused. */
  remove: (name: string, options: { withWorkloads: boolean }) => Promise<void>;
}

export function createGroupStore(paths: RuntimePaths): GroupStore {
  const dir = join(paths.state, 'groups');
  const read = async (name: string): Promise<Group | undefined> => {
    checkName(name, 'group');
    const path = jsonPath(dir, name);
    const found = await readStateFile(path, Group);
    if (found !== undefined && found.name !== name) throw new BrokenStateFileError(path, `it names the group "${found.name}", not "${name}"`);
    if (found !== undefined) return found;
    return name === DEFAULT_GROUP ? { name, registered_clients: [] } : undefined;
  };
  return {
    read,
    exists: async (name) => (await read(name)) !== undefined,
    list: async () => {
      // a file whose name no group could have is not a group (a stray copy), so it is passed over
      const names = new Set([DEFAULT_GROUP, ...(await listJsonNames(dir)).filter(isName)]);
      const groups = await Promise.all([...names].sort().map(read));
      return groups.filter((group): group is Group => group !== undefined);
    },
    write: (group) => writeFileAtomic(jsonPath(dir, group.name), `${JSON.stringify(group, null, 2)}\n`),
    delete: (name) => rm(jsonPath(dir, name), { force: true }),
    withLock: (fn) => withFileLock(join(paths.state, 'locks', 'groups'), fn),
  };
}

/** What groups need of the workloads: finding a group's members and deleting them. */
export interface GroupWorkloads {
  namesInGroup: (group: string) => Promise<string[]>;
  remove: (names: readonly string[]) => Promise<{ done: Promise<void> }>;
}

export interface GroupServiceOptions {
  groups: GroupStore;
  store: WorkloadStore;
  workloads: GroupWorkloads;
}

export function createGroupService({ groups, store, workloads }: GroupServiceOptions): GroupService {
  const get = async (name: string): Promise<Group> => {
    const group = await groups.read(name);
    if (group === undefined) throw new NotFoundError(`group ${name} not found`);
    return group;
  };

  /** Rewrites each workload still in `name` to `default`, in its saved request too so an edit keeps it there. */
  const moveToDefault = async (name: string): Promise<void> => {
    for (const workload of await workloads.namesInGroup(name)) {
      await store.withLock(workload, async () => {
        const config = await store.readConfig(workload);
        if (config?.group !== name) return;
        await store.writeConfig({ ...config, group: DEFAULT_GROUP, request: { ...config.request, group: DEFAULT_GROUP } });
      });
    }
  };

  return {
    list: () => groups.list(),
    get,
    create: (name) =>
      groups.withLock(async () => {
        if (await groups.exists(name)) throw new ConflictError(`group ${name} already exists`);
        const group: Group = { name, registered_clients: [] };
        await groups.write(group);
        return group;
      }),
    remove: async (name, { withWorkloads }) => {
      if (name === DEFAULT_GROUP) throw new InvalidInputError('the default group cannot be deleted');
      await get(name);
      if (withWorkloads) await (await workloads.remove(await workloads.namesInGroup(name))).done;
      // Also catches workloads whose removal failed, so none is left in a group that no longer exists.
      await moveToDefault(name);
      await groups.withLock(() => groups.delete(name));
    },
  };
}
