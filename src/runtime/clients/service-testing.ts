import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import pino from 'pino';
import { runtimePaths, type RuntimePaths } from '../paths.js';
import { createGroupStore, type GroupStore } from '../workloads/groups.js';
import { clientLocation, type ClientType } from './catalog.js';
import type { ConfigFileHooks } from './config-file.js';
import { createClientService, type ClientService, type RunningWorkload } from './service.js';

export const EVERYTHING: RunningWorkload = { name: 'everything', url: 'http://127.0.0.1:41001/mcp', transport: 'streamable-http', group: 'default' };
export const NOTES: RunningWorkload = { name: 'notes', url: 'http://127.0.0.1:41002/sse#notes', transport: 'sse', group: 'default' };

export interface ClientTestbed {
  home: string;
  paths: RuntimePaths;
  groups: GroupStore;
  service: ClientService;
  /** What `listRunning` answers; tests change it to play workloads starting and stopping. */
  running: RunningWorkload[];
  /** The warnings the service logged, as pino objects. */
  warnings: Record<string, unknown>[];
  hooks: ConfigFileHooks;
  file: (type: ClientType) => string;
  read: (type: ClientType) => Promise<string>;
  write: (type: ClientType, content: string) => Promise<void>;
  close: () => Promise<void>;
}

/** A client service on a temporary HOME and XDG directories, Linux layout, with a fake workload list. */
export async function createClientTestbed(): Promise<ClientTestbed> {
  const root = await mkdtemp(join(tmpdir(), 'toolyard-clients-'));
  const home = join(root, 'home');
  const xdgConfigHome = join(root, 'xdg-config');
  const paths = runtimePaths({ XDG_STATE_HOME: join(root, 'state'), XDG_DATA_HOME: join(root, 'data'), XDG_CACHE_HOME: join(root, 'cache'), XDG_CONFIG_HOME: xdgConfigHome }, home);
  const groups = createGroupStore(paths);
  const warnings: Record<string, unknown>[] = [];
  const logger = pino({ level: 'warn' }, { write: (line: string) => warnings.push(JSON.parse(line) as Record<string, unknown>) });
  const hooks: ConfigFileHooks = {};
  const bed: ClientTestbed = {
    home,
    paths,
    groups,
    running: [],
    warnings,
    hooks,
    service: createClientService({
      paths,
      home,
      platform: 'linux',
      xdgConfigHome,
      groups,
      workloads: { listRunning: () => Promise.resolve(bed.running) },
      logger,
      hooks: { beforeWrite: (file) => hooks.beforeWrite?.(file) ?? Promise.resolve() },
    }),
    file: (type) => clientLocation(type, { home, platform: 'linux', xdgConfigHome }).configFile,
    read: (type) => readFile(bed.file(type), 'utf8'),
    write: async (type, content) => {
      await mkdir(dirname(bed.file(type)), { recursive: true });
      await writeFile(bed.file(type), content);
    },
    close: () => rm(root, { recursive: true, force: true }),
  };
  return bed;
}
