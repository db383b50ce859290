import type { Logger } from 'pino';
import { systemClock, type Clock } from '../core/clock.js';
import { createPackageRuntimes, type PackageRuntimes } from './packages/index.js';
import type { RuntimePaths } from './paths.js';
import { createEnvironmentSecretReader } from './secrets/environment.js';
import { createGroupService, createGroupStore } from './workloads/groups.js';
import { createSupervisorControl } from './workloads/launcher.js';
import { createWorkloadService, type GroupService, type WorkloadService } from './workloads/service.js';
import { createWorkloadStore, type WorkloadStore } from './workloads/store.js';
import type { SupervisorControl } from './workloads/supervision.js';

export interface RuntimeServicesOptions {
  paths: RuntimePaths;
  /** The runtime's environment: secrets (environment provider), toolchains on PATH, the supervisors' environment. */
  env: Record<string, string | undefined>;
  logger: Logger;
  /** Relative `npx://./dir` images resolve against it. */
  cwd: string;
  clock?: Clock;
  /** Replaces the detached supervisor processes (tests of route shapes). */
  supervisor?: SupervisorControl;
  packages?: PackageRuntimes;
}

export interface RuntimeServices {
  store: WorkloadStore;
  workloads: WorkloadService;
  groups: GroupService;
}

/**
 * The one library behind both the API and the CLI: both read and write the same files, so a
 * workload started by one is seen by the other.
 */
export function createRuntimeServices(options: RuntimeServicesOptions): RuntimeServices {
  const { paths, env, logger } = options;
  const clock = options.clock ?? systemClock;
  const store = createWorkloadStore(paths);
  const groupStore = createGroupStore(paths);
  const workloads = createWorkloadService({
    store,
    groups: groupStore,
    supervisor: options.supervisor ?? createSupervisorControl({ store, clock, env }),
    packages: options.packages ?? createPackageRuntimes({ cacheDir: paths.cache, env, cwd: options.cwd }),
    secrets: createEnvironmentSecretReader(env),
    paths,
    clock,
    logger,
  });
  return { store, workloads, groups: createGroupService({ groups: groupStore, store, workloads }) };
}
