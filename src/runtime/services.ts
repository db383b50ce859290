import { homedir } from 'node:os';
import type { Logger } from 'pino';
import { systemClock, type Clock } from '../core/clock.js';
import { createArtifactServices, type ArtifactServices } from './artifacts/service.js';
import { createOciClient } from './artifacts/references/oci-client.js';
import { PLUGINS, SKILLS } from './artifacts/kinds.js';
import { keylessSigner } from './artifacts/keyless.js';
import { trustedRootSource } from './artifacts/trusted-root.js';
import { clientDirs } from './clients/catalog.js';
import { registryAuthFiles } from './credentials/files.js';
import { createRegistryCredentials } from './credentials/store.js';
import { createClientService, type ClientService } from './clients/service.js';
import { runningWorkload, withClientSync } from './clients/workload-sync.js';
import { withEnterpriseRegistry, withEnterpriseRegistrySettings, withEnterpriseWorkloads } from './enterprise/enforce.js';
import { createEnterpriseService, type EnterpriseService } from './enterprise/service.js';
import { createContainerRuntime } from './containers/runtime.js';
import { createPackageRuntimes, runtimeIdOf, type PackageRuntimes } from './packages/index.js';
import type { RuntimePaths } from './paths.js';
import { createRegistryService, type RegistryService } from './registry/service.js';
import { createSettingsStore } from './registry/settings.js';
import { SHIPPED_CATALOG_PATH } from './registry/shipped.js';
import { createSecretsService, type SecretsService } from './secrets/service.js';
import { createGroupService, createGroupStore, type GroupService } from './workloads/groups.js';
import { createSupervisorControl } from './workloads/launcher.js';
import { createWorkloadService, type WorkloadService } from './workloads/service.js';
import { createWorkloadStore, type WorkloadStore } from './workloads/store.js';
import type { SupervisorControl } from './workloads/supervision.js';
import { createUpgradeService, type UpgradeService } from './workloads/upgrades.js';
import { configKey, loadRuntimeConfig } from './config.js';
import { RUNTIME_VERSION } from './version.js';

export interface RuntimeServicesOptions {
  paths: RuntimePaths;
  /** The runtime's environment: secrets (environment provider), toolchains on PATH, the supervisors' environment. */
  env: Record<string, string | undefined>;
  logger: Logger;
  /** Relative `npx://./dir` images resolve against it. */
  cwd: string;
  /** Where client applications keep their configuration (default: the user's home directory). */
  home?: string;
  clock?: Clock;
  /** Replaces the detached supervisor processes (tests of route shapes). */
  supervisor?: SupervisorControl;
  packages?: PackageRuntimes;
}

export interface RuntimeServices {
  store: WorkloadStore;
  workloads: WorkloadService;
  groups: GroupService;
  registry: RegistryService;
  upgrades: UpgradeService;
  clients: ClientService;
  secrets: SecretsService;
  enterprise: EnterpriseService;
  skills: ArtifactServices;
  plugins: ArtifactServices;
}

/**
 * The one library behind both the API and the CLI: both read and write the same files, so a
 * workload started by one is seen by the other, and both keep the client configuration files in step.
 */
export function createRuntimeServices(options: RuntimeServicesOptions): RuntimeServices {
  const { paths, env, logger } = options;
  const config = loadRuntimeConfig(env);
  const clock = options.clock ?? systemClock;
  const store = createWorkloadStore(paths);
  const groupStore = createGroupStore(paths);
  const home = options.home ?? homedir();
  // the logins docker and podman keep: image pulls and skill or plugin pushes and pulls use them alike
  const credentials = createRegistryCredentials({ files: registryAuthFiles(env, home), env });
  const containers = createContainerRuntime({
    env,
    runtimeId: runtimeIdOf(paths.cache),
    credentials,
    // the container runner is a node program of ours: run from sources, it needs the loader the runtime runs under
    ...(env.NODE_OPTIONS !== undefined && { runnerEnv: { NODE_OPTIONS: env.NODE_OPTIONS } }),
  });
  const packages = options.packages ?? createPackageRuntimes({ cacheDir: paths.cache, env, cwd: options.cwd, oci: containers });
  const secretsService = createSecretsService({ paths, env });
  const secrets = secretsService.reader();
  // the enterprise configuration decorates the registry and the workloads; their own rules stay theirs
  const enterprise = createEnterpriseService({ paths, clock, logger, version: RUNTIME_VERSION });
  const registry = withEnterpriseRegistry(
    createRegistryService({ paths, clock, logger, shippedCatalogPath: SHIPPED_CATALOG_PATH, settings: withEnterpriseRegistrySettings(createSettingsStore(paths), enterprise) }),
    enterprise,
  );
  const workloads = withEnterpriseWorkloads(
    createWorkloadService({
      store,
      groups: groupStore,
      supervisor: options.supervisor ?? createSupervisorControl({ store, clock, env }),
      packages,
      secrets,
      registry,
      paths,
      clock,
      logger,
    }),
    enterprise,
  );
  const groups = createGroupService({ groups: groupStore, store, workloads });
  const clients = createClientService({
    paths,
    home,
    platform: process.platform,
    xdgConfigHome: env.XDG_CONFIG_HOME,
    groups: groupStore,
    workloads: { listRunning: async () => (await workloads.list({})).map(runningWorkload) },
    logger,
  });
  const synced = withClientSync({ workloads, groups }, clients, logger);
  const upgrades = createUpgradeService({ workloads: synced.workloads, registry, packages, secrets });
  const artifactOptions = {
    paths,
    env,
    dirs: clientDirs({ home, platform: process.platform, xdgConfigHome: env.XDG_CONFIG_HOME }),
    groups: groupStore,
    installedClients: async () => (await clients.discover()).filter((client) => client.installed).map((client) => client.client_type),
    clock,
    registry: createOciClient({ credentials }),
    catalog: registry,
    trust: trustedRootSource(config.sigstore.trustedRoot, configKey('sigstore.trustedRoot')),
    keyless: keylessSigner(config.sigstore),
  };
  const skills = createArtifactServices(SKILLS, artifactOptions);
  const plugins = createArtifactServices(PLUGINS, artifactOptions);
  return { store, ...synced, registry, upgrades, clients, secrets: secretsService, enterprise, skills, plugins };
}
