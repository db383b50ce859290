import { mkdir } from 'node:fs/promises';
import { networkInterfaces } from 'node:os';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { Clock } from '../../core/clock.js';
import { ConflictError, InvalidInputError, NotFoundError } from '../../core/errors.js';
import type { PackageRuntimes } from '../packages/types.js';
import type { RuntimePaths } from '../paths.js';
import type { RegistryLookup } from '../registry/types.js';
import type { SecretReader } from '../secrets/environment.js';
import { BrokenStateFileError, readLastLines } from '../state/files.js';
import { DEFAULT_GROUP, type GroupStore } from './groups.js';
import { createWorkloadLifecycle, type Accepted } from './lifecycle.js';
import { createPortAllocator, type PortAllocator } from './ports.js';
import { applyEntry, entryWorkloadName, findEntry, registryEntryOf, type RegistryOrigin } from './registry-source.js';
import {
  baseName,
  buildRunConfig,
  candidateName,
  checkName,
  checkSchema,
  missingSecrets,
  registryReferenceOf,
  transportOf,
  validateRequest,
  type WorkloadSource,
} from './run-config.js';
import type { CreatedWorkload, RegistryEntry, WorkloadDetails, RunConfig, ServerCommand, WorkloadRequest, WorkloadStatus, WorkloadSummary } from './schemas.js';
import { brokenSummary, isActive, observeStatus, summaryOf, type ObservedStatus } from './status-view.js';
import type { LogKind, WorkloadStore } from './store.js';
import type { SupervisorControl } from './supervision.js';

export interface WorkloadListQuery {
  /** Include workloads that are not running. */
  all?: boolean;
  group?: string;
}

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
  /** The IP addresses of this machine's interfaces, which a workload's proxy may bind (os.networkInterfaces by default). */
  localAddresses?: () => string[];
}

const LOG_LINES = 1000;
const NAME_ATTEMPTS = 100;
/** Names that the API's own routes take under /workloads/. */
const RESERVED_NAMES = new Set(['upgrade-check']);

/**
 * The workload rules shared by the API and the CLI. Every operation on one workload takes its turn
 * (lifecycle.ts), and writes to its files happen under its store lock, shared with other processes.
 */
export function createWorkloadService(options: WorkloadServiceOptions): WorkloadService {
  const { store, groups, supervisor, packages, secrets, paths, clock, logger, registry } = options;
  const ports = options.ports ?? createPortAllocator();
  const localAddresses = options.localAddresses ?? interfaceAddresses;
  const lifecycle = createWorkloadLifecycle({ store, supervisor, paths, clock, logger, release: packages.release });
  const { writeStatus, start } = lifecycle;
  const workdir = (name: string): string => join(paths.data, 'workdirs', name);
  const now = (): string => clock.now().toISOString();
  const notFound = (name: string) => new NotFoundError(`workload ${name} not found`);

  const configOf = async (name: string): Promise<RunConfig> => {
    checkName(name, 'workload');
    const config = await store.readConfig(name);
    if (config === undefined) throw notFound(name);
    return config;
  };

  const observe = async (name: string): Promise<ObservedStatus> => {
    try {
      return await observeStatus(await store.readStatus(name), supervisor, clock);
    } catch (error) {
      if (error instanceof BrokenStateFileError) return { status: 'error', status_context: error.message, started_at: '' };
      throw error;
    }
  };

  const install = (image: string, request: WorkloadRequest): Promise<string> => packages.forImage(image).prepare(image, request.runtime_config);

  /** What the installer printed goes to the supervisor and proxy log (`logs --proxy`), never to the caller's terminal. */
  const logInstall = async (name: string, source: WorkloadSource, output: string | undefined): Promise<void> => {
    const lines = (output ?? '').split(/\r?\n/).filter((line) => line.trim() !== '');
    if (source.kind !== 'package' || lines.length === 0) return;
    const at = now();
    await store.appendLog(name, 'proxy', lines.map((line) => `${at} install ${source.image}: ${line}\n`).join(''));
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
  const concrete = async (body: WorkloadRequest, saved: RunConfig | undefined, given: RegistryEntry | undefined) => {
    checkSchema(body);
    const request = withoutResolvedEcho(body, saved);
    const reference = registryReferenceOf(request);
    if (reference === undefined) return { request, origin: undefined };
    const origin = await registryOrigin(reference, saved, given);
    return { request: await applyEntry(request, origin.entry, secrets), body: request, origin };
  };

  /**
   * Checks that need no lock: the body (a registry body's required env vars included), the secrets
   * it references, its group; then installs the package.
   */
  const prepare = async (given: WorkloadRequest, saved: RunConfig | undefined, entry?: RegistryEntry) => {
    const { request, body, origin } = await concrete(given, saved, entry);
    const source = validateRequest(request, saved?.request, localAddresses());
    const missing = await missingSecrets(request, secrets);
    if (missing.length > 0) throw new InvalidInputError(`secrets not found: ${missing.join(', ')}`);
    const group = request.group ?? saved?.group ?? DEFAULT_GROUP;
    if (!(await groups.exists(group))) throw new InvalidInputError(`group ${group} does not exist`);
    const installed = source.kind === 'package' ? await install(source.image, request) : undefined;
    return { request, body: body ?? request, origin, source, group, installed };
  };

  /** Ports held by the other workloads' configurations, whether they run or not. */
  const takenPorts = async (except: string): Promise<Map<number, string>> => {
    const taken = new Map<number, string>();
    for (const { config } of await store.listConfigs()) {
      if (config === undefined || config.name === except) continue;
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

  /** Resolved once the name and ports are known: a container is named after its workload and publishes its target port. */
  const serverCommand = async (name: string, source: WorkloadSource, request: WorkloadRequest, targetPort: number, origin: RegistryOrigin | undefined) => {
    if (source.kind !== 'package') return undefined;
    const context = { name, request, transport: transportOf(request, source), targetPort, permissions: origin?.entry.permissions };
    const resolved = await packages.forImage(source.image).resolve(source.image, request.runtime_config, context);
    const cwd = resolved.cwd ?? workdir(name);
    await mkdir(cwd, { recursive: true, mode: 0o700 });
    const command: ServerCommand = { command: resolved.command, args: [...resolved.args, ...(request.cmd_arguments ?? [])], cwd, env: resolved.env ?? {} };
    return command;
  };

  const create = async (body: WorkloadRequest): Promise<CreatedWorkload> => {
    if (body.name !== undefined && RESERVED_NAMES.has(body.name)) {
      throw new InvalidInputError(`"${body.name}" cannot name a workload: /api/v1beta/workloads/${body.name} is another route`);
    }
    const { request, body: saved, origin, source, group, installed } = await prepare(body, undefined);
    const base = request.name ?? (origin === undefined ? baseName(source) : entryWorkloadName(origin.entry));
    for (let attempt = 1; attempt <= NAME_ATTEMPTS; attempt++) {
      const name = request.name ?? candidateName(base, attempt);
      if (RESERVED_NAMES.has(name)) continue;
      // behind a delete of the same name, so a name can be reused as soon as its deletion is done
      const created = await lifecycle.inTurn(name, async () => {
        const written = await store.withLock(name, async () => {
          if (await store.exists(name)) {
            if (request.name !== undefined) throw new ConflictError(`workload ${name} already exists`);
            return undefined;
          }
          const { port, targetPort } = await portsFor(name, request, source, undefined);
          const command = await serverCommand(name, source, request, targetPort, origin);
          await store.writeConfig(buildRunConfig({ request, body: saved, registry: origin, source, name, group, port, targetPort, command, createdAt: now() }));
          await writeStatus(name, { status: 'starting', status_context: '' });
          await logInstall(name, source, installed);
          return { name, port };
        });
        if (written !== undefined) await start(name);
        return written;
      });
      if (created !== undefined) return created;
    }
    throw new ConflictError(`no free workload name after ${base}-${String(NAME_ATTEMPTS)}; choose a name`);
  };

  const update = async (name: string, given: WorkloadRequest, updateOptions: UpdateOptions = {}): Promise<CreatedWorkload> => {
    if (lifecycle.isDeleting(name)) throw notFound(name);
    const saved = await configOf(name);
    if (given.name !== undefined && given.name !== name) throw new InvalidInputError('a workload cannot be renamed; create a new one');
    const { request, body, origin, source, group, installed } = await prepare(given, saved, updateOptions.entry);
    return lifecycle.inTurn(name, async () => {
      if (await lifecycle.beingDeleted(name)) throw notFound(name);
      const wasActive = isActive((await observe(name)).status);
      const port = await store.withLock(name, async () => {
        const current = await configOf(name);
        const chosen = await portsFor(name, request, source, current);
        const command = await serverCommand(name, source, request, chosen.targetPort, origin);
        const config = buildRunConfig({ request, body, registry: origin, source, name, group, ...chosen, command, createdAt: current.created_at });
        await store.writeConfig(config);
        await logInstall(name, source, installed);
        return config.port;
      });
      if (wasActive) await lifecycle.restartNow(name, 'restarting with the new configuration');
      return { name, port };
    });
  };

  return {
    create,
    update,
    list: async ({ all = false, group }) => {
      if (group !== undefined && !(await groups.exists(group))) throw new NotFoundError(`group ${group} not found`);
      const stored = (await store.listConfigs()).filter((entry) => group === undefined || entry.config?.group === group);
      const summaries = await Promise.all(
        stored.map(async (entry) => (entry.config === undefined ? brokenSummary(entry.name, entry.broken.message) : summaryOf(entry.config, await observe(entry.name)))),
      );
      return all ? summaries : summaries.filter((summary) => summary.status === 'running');
    },
    get: async (name) => {
      const config = await configOf(name);
      return {
        ...config.request,
        ...resolvedSource(config),
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
      try {
        await configOf(name);
      } catch (error) {
        if (error instanceof BrokenStateFileError) return { status: 'error', status_context: error.message };
        throw error;
      }
      const { status, status_context } = await observe(name);
      return { status, status_context };
    },
    logs: async (name, kind) => {
      checkName(name, 'workload');
      if (!(await store.exists(name))) throw notFound(name);
      return readLastLines(store.logPath(name, kind), LOG_LINES);
    },
    stop: (names) => lifecycle.bulk(names, 'stop'),
    restart: (names) => lifecycle.bulk(names, 'restart'),
    remove: (names) => lifecycle.bulk(names, 'remove'),
    namesInGroup: async (group) => {
      if (!(await groups.exists(group))) throw new NotFoundError(`group ${group} not found`);
      return (await store.listConfigs()).filter((entry) => entry.config?.group === group).map((entry) => entry.name);
    },
  };
}

function interfaceAddresses(): string[] {
  return Object.values(networkInterfaces()).flatMap((addresses) => (addresses ?? []).map((address) => address.address));
}

/** What a registry-sourced workload runs, shown in its details beside `registry` and `server`. */
function resolvedSource(config: RunConfig): Pick<WorkloadRequest, 'image' | 'url'> {
  if (config.request.registry === undefined) return {};
  return config.image !== '' ? { image: config.image } : { url: config.remote_url };
}

/**
 * Details show the image (or url) a catalog entry resolved to beside `registry` and `server`; sent
 * back unchanged on edit it is an echo, not a second source. A changed one is refused.
 */
function withoutResolvedEcho(body: WorkloadRequest, saved: RunConfig | undefined): WorkloadRequest {
  if (saved === undefined || (body.registry === undefined && body.server === undefined)) return body;
  if (body.image === undefined && body.url === undefined) return body;
  const { image, url, ...rest } = body;
  if ((image ?? saved.image) === saved.image && (url ?? saved.remote_url) === saved.remote_url) return rest;
  const runs = saved.image !== '' ? saved.image : saved.remote_url;
  throw new InvalidInputError(
    `${image !== undefined ? `image ${image}` : `url ${url ?? ''}`} is not what the catalog entry ${body.server ?? ''} runs (${runs}): send it unchanged, or leave out registry and server to run something else`,
  );
}
