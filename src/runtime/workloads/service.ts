import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { Clock } from '../../core/clock.js';
import { ConflictError, InvalidInputError, NotFoundError } from '../../core/errors.js';
import type { PackageRuntimes } from '../packages/types.js';
import type { RuntimePaths } from '../paths.js';
import type { RegistryLookup } from '../registry/types.js';
import type { SecretReader } from '../secrets/environment.js';
import { readLastLines } from '../state/files.js';
import { DEFAULT_GROUP, type GroupStore } from './groups.js';
import { createPortAllocator, type PortAllocator } from './ports.js';
import { applyEntry, entryWorkloadName, findEntry, registryEntryOf, type RegistryEntry, type RegistryOrigin } from './registry-source.js';
import {
  baseName,
  buildRunConfig,
  candidateName,
  checkSchema,
  missingSecrets,
  registryReferenceOf,
  transportOf,
  validateRequest,
  type WorkloadSource,
} from './run-config.js';
import type { CreatedWorkload, RunConfig, ServerCommand, StatusRecord, WorkloadRequest, WorkloadStatus, WorkloadSummary } from './schemas.js';
import { isActive, observeStatus, summaryOf } from './status-view.js';
import type { LogKind, WorkloadStore } from './store.js';
import type { SupervisorControl } from './supervision.js';

/** Work accepted now and finished later (the API answers 202; the CLI waits for `done`). */
export interface Accepted {
  done: Promise<void>;
}

export interface WorkloadListQuery {
  /** Include workloads that are not running. */
  all?: boolean;
  group?: string;
}

/** Workload details: the create body as saved, with the name and group filled in. */
export type WorkloadDetails = WorkloadRequest & { name: string; group: string };

export interface UpdateOptions {
  /**
   * Resolve a `{registry, server}` body against this entry (an upgrade's candidate) instead of the
   * entry the workload was made from.
   */
  entry?: RegistryEntry;
}

export interface WorkloadService {
  create: (request: WorkloadRequest) => Promise<CreatedWorkload>;
  list: (query: WorkloadListQuery) => Promise<WorkloadSummary[]>;
  get: (name: string) => Promise<WorkloadDetails>;
  exportConfig: (name: string) => Promise<RunConfig>;
  /**
   * Replaces the configuration (the port is kept) and restarts a running workload. A registry body
   * naming the same server resolves against the entry the workload was made from, so an edit never
   * changes the version that runs: upgrades do.
   */
  update: (name: string, request: WorkloadRequest, options?: UpdateOptions) => Promise<CreatedWorkload>;
  status: (name: string) => Promise<{ status: WorkloadStatus; status_context: string }>;
  /** The last 1000 lines of the server's output or of the supervisor and proxy log. */
  logs: (name: string, kind: LogKind) => Promise<string>;
  /** Unknown names are a NotFoundError before anything is done. */
  stop: (names: readonly string[]) => Promise<Accepted>;
  restart: (names: readonly string[]) => Promise<Accepted>;
  remove: (names: readonly string[]) => Promise<Accepted>;
  /** The names of a group's workloads (NotFoundError for an unknown group). */
  namesInGroup: (group: string) => Promise<string[]>;
}

export interface Group {
  name: string;
  registered_clients: string[];
}

export interface GroupService {
  list: () => Promise<Group[]>;
  get: (name: string) => Promise<Group>;
  /** ConflictError when it exists. */
  create: (name: string) => Promise<Group>;
  /** Moves the group's workloads to `default`, or deletes them with `withWorkloads`; `default` is refused. */
  remove: (name: string, options: { withWorkloads: boolean }) => Promise<void>;
}

export interface WorkloadServiceOptions {
  store: WorkloadStore;
  groups: GroupStore;
  supervisor: SupervisorControl;
  packages: PackageRuntimes;
  secrets: SecretReader;
  paths: RuntimePaths;
  clock: Clock;
  logger: Logger;
  ports?: PortAllocator;
  /** The configured registry; without it a `{registry, server}` body is a 400. */
  registry?: RegistryLookup;
}

const LOG_LINES = 1000;
const NAME_ATTEMPTS = 100;
/** Names that the API's own routes take under /workloads/. */
const RESERVED_NAMES = new Set(['upgrade-check']);

const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/**
 * The workload rules shared by the API and the CLI. Writes to one workload happen under its store
 * lock; the supervisor is never called with that lock held, since starting and stopping wait on a process.
 */
export function createWorkloadService(options: WorkloadServiceOptions): WorkloadService {
  const { store, groups, supervisor, packages, secrets, paths, clock, logger, registry } = options;
  const ports = options.ports ?? createPortAllocator();
  const workdir = (name: string): string => join(paths.data, 'workdirs', name);
  const now = (): string => clock.now().toISOString();

  const configOf = async (name: string): Promise<RunConfig> => {
    const config = await store.readConfig(name);
    if (config === undefined) throw new NotFoundError(`workload ${name} not found`);
    return config;
  };

  const observe = async (name: string) => observeStatus(await store.readStatus(name), supervisor, clock);

  const installAndResolve = async (image: string, request: WorkloadRequest) => {
    const runtime = packages.forImage(image);
    await runtime.prepare(image, request.runtime_config);
    return runtime.resolve(image, request.runtime_config);
  };

  /** The entry a registry body resolves against: the given one, the one the workload was made from, or the catalog's newest. */
  const registryOrigin = async (
    reference: { registry: string; server: string },
    saved: RunConfig | undefined,
    given: RegistryEntry | undefined,
  ): Promise<RegistryOrigin> => {
    if (registry === undefined) throw new InvalidInputError('registry references need a configured registry');
    const kept = saved === undefined ? undefined : registryEntryOf(saved);
    const sameServer =
      kept !== undefined &&
      saved !== undefined &&
      kept.registry === reference.registry &&
      (saved.request.server === reference.server || kept.server === reference.server);
    if (given === undefined && sameServer) return { url: saved.registry_url, entry: kept };
    const entry = given ?? (await findEntry(registry, reference));
    const described = await registry.describe(entry.registry);
    return { url: described.url !== '' ? described.url : described.api_url, entry };
  };

  /** A registry body made concrete with its entry's defaults; any other body as it is. */
  const concrete = async (request: WorkloadRequest, saved: RunConfig | undefined, given: RegistryEntry | undefined) => {
    checkSchema(request);
    const reference = registryReferenceOf(request);
    if (reference === undefined) return { request, origin: undefined };
    const origin = await registryOrigin(reference, saved, given);
    return { request: await applyEntry(request, origin.entry, secrets), origin };
  };

  /**
   * Checks that need no lock: the body (a registry body's required env vars included), the secrets
   * it references, its group; then installs the package.
   */
  const prepare = async (body: WorkloadRequest, saved: RunConfig | undefined, given?: RegistryEntry) => {
    const { request, origin } = await concrete(body, saved, given);
    const source = validateRequest(request, saved?.request);
    const missing = await missingSecrets(request, secrets);
    if (missing.length > 0) throw new InvalidInputError(`secrets not found: ${missing.join(', ')}`);
    const group = request.group ?? saved?.group ?? DEFAULT_GROUP;
    if (!(await groups.exists(group))) throw new InvalidInputError(`group ${group} does not exist`);
    const resolved = source.kind === 'package' ? await installAndResolve(source.image, request) : undefined;
    return { request, origin, source, group, resolved };
  };

  /** Ports held by the other workloads' configurations, whether they run or not. */
  const takenPorts = async (except: string): Promise<Map<number, string>> => {
    const taken = new Map<number, string>();
    for (const config of await store.listConfigs()) {
      if (config.name === except) continue;
      taken.set(config.port, config.name);
      if (config.target_port > 0) taken.set(config.target_port, config.name);
    }
    return taken;
  };

  /** A kept port stays unless the body asks for another one, which must then be free. */
  const portsFor = async (name: string, request: WorkloadRequest, source: WorkloadSource, saved: RunConfig | undefined) => {
    const taken = await takenPorts(name);
    const port =
      saved !== undefined && (request.proxy_port === undefined || request.proxy_port === saved.port)
        ? saved.port
        : await ports.choose(request.proxy_port, taken);
    taken.set(port, name);
    if (source.kind === 'remote' || transportOf(request, source) === 'stdio') return { port, targetPort: 0 };
    const keep = saved !== undefined && saved.target_port > 0 && (request.target_port === undefined || request.target_port === saved.target_port);
    return { port, targetPort: keep ? saved.target_port : await ports.choose(request.target_port, taken) };
  };

  const serverCommand = async (name: string, resolved: Awaited<ReturnType<typeof installAndResolve>> | undefined, request: WorkloadRequest) => {
    if (resolved === undefined) return undefined;
    const cwd = resolved.cwd ?? workdir(name);
    await mkdir(cwd, { recursive: true, mode: 0o700 });
    const command: ServerCommand = { command: resolved.command, args: [...resolved.args, ...(request.cmd_arguments ?? [])], cwd, env: resolved.env ?? {} };
    return command;
  };

  const writeStatus = async (name: string, change: Partial<StatusRecord> & Pick<StatusRecord, 'status' | 'status_context'>, before?: StatusRecord) => {
    const base: StatusRecord = before ?? { status: 'stopped', status_context: '', started_at: '', restarts: 0, updated_at: '' };
    await store.writeStatus(name, { ...base, ...change, updated_at: now() });
  };

  /** Starts the supervisor; a failure leaves the workload in place with status `error` and the reason. */
  const start = async (name: string): Promise<void> => {
    try {
      await supervisor.start(name);
    } catch (error) {
      logger.warn({ workload: name, reason: messageOf(error) }, 'workload failed to start');
      await store.withLock(name, async () => {
        const record = await store.readStatus(name);
        // The supervisor's own error context is more precise than the launcher's.
        if (record?.status !== 'error') await writeStatus(name, { status: 'error', status_context: messageOf(error) }, record);
      });
    }
  };

  /** Records `status` at once and returns the record naming the processes to stop. */
  const mark = (name: string, status: 'stopping' | 'removing', context = '') =>
    store.withLock(name, async () => {
      const record = await store.readStatus(name);
      await writeStatus(name, { status, status_context: context }, record);
      return record;
    });

  const finishStop = async (name: string, record: StatusRecord | undefined): Promise<void> => {
    await supervisor.stop(name, record);
    await store.withLock(name, async () => {
      const current = await store.readStatus(name);
      if (current === undefined || current.status === 'stopping') {
        await writeStatus(name, { status: 'stopped', status_context: '', supervisor: undefined, server: undefined }, current);
      }
    });
  };

  const finishRemove = async (name: string, record: StatusRecord | undefined): Promise<void> => {
    await supervisor.stop(name, record);
    await store.withLock(name, async () => {
      await store.remove(name);
      await rm(workdir(name), { recursive: true, force: true });
    });
  };

  /**
   * Unknown names fail before anything happens; then each status is written at once and the slow
   * part runs in `done`, which never rejects: a failure is logged and recorded as the workload's error.
   */
  const bulk = async (
    names: readonly string[],
    status: 'stopping' | 'removing',
    context: string,
    finish: (name: string, record: StatusRecord | undefined) => Promise<void>,
  ): Promise<Accepted> => {
    const unique = [...new Set(names)];
    const unknown: string[] = [];
    for (const name of unique) if ((await store.readConfig(name)) === undefined) unknown.push(name);
    if (unknown.length > 0) throw new NotFoundError(`workloads not found: ${unknown.join(', ')}`);
    const records = await Promise.all(unique.map((name) => mark(name, status, context)));
    const done = Promise.all(
      unique.map(async (name, index) => {
        try {
          await finish(name, records[index]);
        } catch (error) {
          logger.warn({ workload: name, reason: messageOf(error) }, `workload ${status} failed`);
          await store.withLock(name, async () => {
            await writeStatus(name, { status: 'error', status_context: messageOf(error) }, await store.readStatus(name));
          });
        }
      }),
    ).then(() => undefined);
    return { done };
  };

  const restartOne = async (name: string, record: StatusRecord | undefined): Promise<void> => {
    await finishStop(name, record);
    await start(name);
  };

  const create = async (body: WorkloadRequest): Promise<CreatedWorkload> => {
    if (body.name !== undefined && RESERVED_NAMES.has(body.name)) {
      throw new InvalidInputError(`"${body.name}" cannot name a workload: /api/v1beta/workloads/${body.name} is another route`);
    }
    const { request, origin, source, group, resolved } = await prepare(body, undefined);
    const base = request.name ?? (origin === undefined ? baseName(source) : entryWorkloadName(origin.entry));
    for (let attempt = 1; attempt <= NAME_ATTEMPTS; attempt++) {
      const name = request.name ?? candidateName(base, attempt);
      if (RESERVED_NAMES.has(name)) continue;
      const created = await store.withLock(name, async () => {
        if ((await store.readConfig(name)) !== undefined) {
          if (request.name !== undefined) throw new ConflictError(`workload ${name} already exists`);
          return undefined;
        }
        const { port, targetPort } = await portsFor(name, request, source, undefined);
        const command = await serverCommand(name, resolved, request);
        await store.writeConfig(buildRunConfig({ request, body, registry: origin, source, name, group, port, targetPort, command, createdAt: now() }));
        await writeStatus(name, { status: 'starting', status_context: '' });
        return { name, port };
      });
      if (created === undefined) continue;
      await start(name);
      return created;
    }
    throw new ConflictError(`no free workload name after ${base}-${String(NAME_ATTEMPTS)}; choose a name`);
  };

  const update = async (name: string, body: WorkloadRequest, updateOptions: UpdateOptions = {}): Promise<CreatedWorkload> => {
    const saved = await configOf(name);
    if (body.name !== undefined && body.name !== name) throw new InvalidInputError('a workload cannot be renamed; create a new one');
    const { request, origin, source, group, resolved } = await prepare(body, saved, updateOptions.entry);
    const wasActive = isActive((await observe(name)).status);
    const port = await store.withLock(name, async () => {
      const current = await configOf(name);
      const chosen = await portsFor(name, request, source, current);
      const command = await serverCommand(name, resolved, request);
      const config = buildRunConfig({ request, body, registry: origin, source, name, group, ...chosen, command, createdAt: current.created_at });
      await store.writeConfig(config);
      return config.port;
    });
    if (wasActive) await restartOne(name, await mark(name, 'stopping', 'restarting with the new configuration'));
    return { name, port };
  };

  return {
    create,
    update,
    list: async ({ all = false, group }) => {
      if (group !== undefined && !(await groups.exists(group))) throw new NotFoundError(`group ${group} not found`);
      const configs = (await store.listConfigs()).filter((config) => group === undefined || config.group === group);
      const summaries = await Promise.all(configs.map(async (config) => summaryOf(config, await observe(config.name))));
      return all ? summaries : summaries.filter((summary) => summary.status === 'running');
    },
    get: async (name) => {
      const config = await configOf(name);
      return {
        ...config.request,
        name,
        group: config.group,
        transport: config.transport,
        proxy_mode: config.proxy_mode,
        proxy_port: config.port,
        ...(config.target_port > 0 && { target_port: config.target_port }),
      };
    },
    exportConfig: configOf,
    status: async (name) => {
      await configOf(name);
      const { status, status_context } = await observe(name);
      return { status, status_context };
    },
    logs: async (name, kind) => {
      await configOf(name);
      return readLastLines(store.logPath(name, kind), LOG_LINES);
    },
    stop: (names) => bulk(names, 'stopping', '', finishStop),
    restart: (names) => bulk(names, 'stopping', 'restarting', restartOne),
    remove: (names) => bulk(names, 'removing', '', finishRemove),
    namesInGroup: async (group) => {
      if (!(await groups.exists(group))) throw new NotFoundError(`group ${group} not found`);
      return (await store.listConfigs()).filter((config) => config.group === group).map((config) => config.name);
    },
  };
}
