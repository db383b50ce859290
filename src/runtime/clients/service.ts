import { access, readFile } from 'node:fs/promises';
import type { Logger } from 'pino';
import { InvalidInputError, NotFoundError } from '../../core/errors.js';
import type { RuntimePaths } from '../paths.js';
import { withFileLock } from '../state/files.js';
import { DEFAULT_GROUP, type GroupStore } from '../workloads/groups.js';
import { CLIENT_TYPES, CLIENTS, clientLocation, isClientType, type ClientSpec, type ClientType, type ClientWorkload } from './catalog.js';
import { rewriteIfUnchanged, type ConfigFileHooks } from './config-file.js';
import { createOwnershipStore } from './ownership.js';
import type { ClientRegistration, ClientStatus } from './schemas.js';
import { planSync, readEntries } from './sync.js';

export interface RunningWorkload extends ClientWorkload {
  group: string;
}

export interface ClientService {
  discover: () => Promise<ClientStatus[]>;
  /** Adds the client to the groups (default: `default`) and writes their running workloads into its file. */
  register: (name: string, groups?: string[]) => Promise<ClientRegistration>;
  registerMany: (names: string[], groups?: string[]) => Promise<ClientRegistration[]>;
  list: () => Promise<ClientRegistration[]>;
  /** Takes the clients out of the given groups (all of them when none are given) and their entries out of their files. */
  unregister: (names: string[], groups?: string[]) => Promise<void>;
  removeFromGroup: (name: string, group: string) => Promise<void>;
  /** Makes every registered client's file hold exactly the running workloads of its groups. */
  reconcile: () => Promise<void>;
}

export interface ClientServiceOptions {
  paths: RuntimePaths;
  home: string;
  platform: NodeJS.Platform;
  /** `$XDG_CONFIG_HOME` as set in the environment; unset means `~/.config`. */
  xdgConfigHome?: string | undefined;
  groups: GroupStore;
  workloads: { listRunning: () => Promise<RunningWorkload[]> };
  logger: Logger;
  hooks?: ConfigFileHooks;
}

const exists = (path: string): Promise<boolean> =>
  access(path).then(
    () => true,
    () => false,
  );

const unique = (items: readonly string[]): string[] => [...new Set(items)];

async function readIfPresent(file: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return '';
    throw error;
  }
}

export function createClientService(options: ClientServiceOptions): ClientService {
  const { groups, workloads, logger } = options;
  const ownership = createOwnershipStore(options.paths);
  const locate = (type: ClientType) => clientLocation(type, options);

  const clientTypes = (names: readonly string[]): ClientType[] => {
    const unknown = names.filter((name) => !isClientType(name));
    if (unknown.length > 0) throw new InvalidInputError(`unknown client type ${unknown.join(', ')}; known types: ${CLIENT_TYPES.join(', ')}`);
    return unique(names) as ClientType[];
  };

  /** Each registered client with its groups, from the groups' `registered_clients`. */
  const registrations = async (): Promise<Map<ClientType, string[]>> => {
    const found = new Map<ClientType, string[]>();
    for (const group of await groups.list()) {
      for (const client of group.registered_clients) {
        if (isClientType(client)) found.set(client, [...(found.get(client) ?? []), group.name]);
      }
    }
    return found;
  };

  /** Adds or removes clients in groups' records, all or nothing: every group is checked before any is written. */
  const changeGroups = (names: readonly ClientType[], targets: readonly string[] | undefined, add: boolean): Promise<void> =>
    groups.withLock(async () => {
      const records = targets === undefined ? await groups.list() : await Promise.all(targets.map((name) => groups.read(name)));
      const missing = targets?.filter((_, index) => records[index] === undefined) ?? [];
      if (missing.length > 0) throw new NotFoundError(`group ${missing.join(', ')} not found`);
      for (const group of records) {
        if (!group) continue;
        const clients = add ? unique([...group.registered_clients, ...names]) : group.registered_clients.filter((client) => !names.includes(client as ClientType));
        if (clients.length !== group.registered_clients.length) await groups.write({ ...group, registered_clients: clients });
      }
    });

  /** Refuses to register a client whose file cannot be parsed, before anything is recorded. */
  const checkReadable = async (type: ClientType): Promise<void> => {
    const { configFile } = locate(type);
    readEntries(CLIENTS[type].format, configFile, await readIfPresent(configFile));
  };

  const sync = async (type: ClientType): Promise<void> => {
    const spec: ClientSpec = CLIENTS[type];
    const { configFile } = locate(type);
    const registered = (await registrations()).has(type);
    // an unregistered client without entries of ours: nothing to do, and no directory to create
    if (!registered && (await ownership.read(type, configFile)).servers.length === 0) return;
    await withFileLock(configFile, async () => {
      const owned = await ownership.read(type, configFile);
      const memberOf = new Set((await registrations()).get(type) ?? []);
      const running = memberOf.size === 0 ? [] : await workloads.listRunning();
      const desired = new Map(
        running
          .filter((workload) => memberOf.has(workload.group))
          .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
          .map((workload) => [workload.name, spec.entry(workload)]),
      );
      if (desired.size === 0 && owned.servers.length === 0) return;
      const plan = await rewriteIfUnchanged(configFile, (text) => planSync({ format: spec.format, file: configFile, text, desired, owned }), {
        // recorded before the write, so a crash in between never leaves an entry of ours looking like the user's
        commit: (result) => ownership.write(type, { ...owned, servers: unique([...owned.servers, ...result.servers]) }),
        ...(options.hooks && { hooks: options.hooks }),
      });
      await ownership.write(type, { file: configFile, servers: plan.servers, created_key: plan.created_key });
      for (const name of plan.conflicts) {
        logger.warn({ client: type, server: name, file: configFile }, 'the client configuration already has a server of this name that Toolyard did not write; left as it is');
      }
    });
  };

  const groupsOrDefault = (given: readonly string[] | undefined): string[] => (given === undefined || given.length === 0 ? [DEFAULT_GROUP] : unique(given));

  const registerMany = async (names: string[], given?: string[]): Promise<ClientRegistration[]> => {
    const types = clientTypes(names);
    const targets = groupsOrDefault(given);
    for (const type of types) await checkReadable(type);
    await changeGroups(types, targets, true);
    for (const type of types) await sync(type);
    return types.map((name) => ({ name, groups: targets }));
  };

  const unregister = async (names: string[], given?: string[]): Promise<void> => {
    const types = clientTypes(names);
    await changeGroups(types, given === undefined ? undefined : unique(given), false);
    for (const type of types) await sync(type);
  };

  return {
    discover: async () => {
      const registered = await registrations();
      return Promise.all(
        CLIENT_TYPES.map(async (type) => {
          const spec: ClientSpec = CLIENTS[type];
          const installed = (await Promise.all(locate(type).installedWhen.map(exists))).some(Boolean);
          return { client_type: type, installed, registered: registered.has(type), supports_skills: spec.supportsSkills, supports_plugins: spec.supportsPlugins };
        }),
      );
    },
    register: async (name, given) => {
      const [registration] = await registerMany([name], given);
      return registration ?? { name, groups: groupsOrDefault(given) };
    },
    registerMany,
    list: async () =>
      [...(await registrations())].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([name, memberOf]) => ({ name, groups: memberOf })),
    unregister,
    removeFromGroup: (name, group) => unregister([name], [group]),
    reconcile: async () => {
      const recorded = (await ownership.clients()).filter(isClientType);
      for (const type of unique([...(await registrations()).keys(), ...recorded]) as ClientType[]) {
        try {
          await sync(type);
        } catch (error) {
          logger.warn({ err: error, client: type }, 'could not update the client configuration');
        }
      }
    },
  };
}
