import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { systemClock } from '../../core/clock.js';
import { silentLogger } from '../../core/telemetry/logger.js';
import { runCommand } from '../packages/command.js';
import { createPackageRuntimes } from '../packages/index.js';
import { printingPackage, startFakeNpmRegistry, type FakeNpmRegistry } from '../packages/npm-registry-testing.js';
import type { CommandRunner, PackageRuntimes } from '../packages/types.js';
import { runtimePaths, type RuntimePaths } from '../paths.js';
import type { SecretReader } from '../secrets/environment.js';
import { createGroupStore } from './groups.js';
import { createFakeRegistryLookup, type FakeRegistryLookup } from './registry-testing.js';
import { createWorkloadService, type WorkloadService } from './service.js';
import { createWorkloadStore, type WorkloadStore } from './store.js';
import { createFakeSupervisor, type FakeSupervisor } from './supervision-testing.js';
import { createUpgradeService, type UpgradeService } from './upgrades.js';

export const PACKAGE = '@acme/weather-server';
export const image = (version: string): string => `npx://${PACKAGE}@${version}`;

/**
 * Versions 1.0.0 and 1.1.0 of a tiny npm package, published on loopback. The fake npm registry
 * serves one version per package, so each version has its own and installs are routed by version;
 * any other version is asked of the 1.1.0 registry, which does not have it.
 */
export interface PublishedPackage {
  registries: FakeNpmRegistry[];
  /** Package runtimes with a cache shared by every test of a file, so a version is installed once. */
  packages: (run: CommandRunner) => PackageRuntimes;
  /** Packument requests of every registry: none means nothing was installed. */
  requests: () => string[];
  close: () => Promise<void>;
}

export async function publishWeatherServer(): Promise<PublishedPackage> {
  const root = await mkdtemp(join(tmpdir(), 'toolyard-upgrades-npm-'));
  const env = { PATH: process.env.PATH ?? '', HOME: join(root, 'home'), npm_config_cache: join(root, 'npm-cache') };
  const v1 = await startFakeNpmRegistry([printingPackage(PACKAGE, '1.0.0', 'index.js')], root, env);
  const v11 = await startFakeNpmRegistry([printingPackage(PACKAGE, '1.1.0', 'index.js')], root, env);
  const cacheDir = join(root, 'cache');
  return {
    registries: [v1, v11],
    packages: (run) => {
      const runtimes = (registry: FakeNpmRegistry) => createPackageRuntimes({ cacheDir, env, cwd: root, npm: { registry: registry.url }, run });
      const first = runtimes(v1);
      const later = runtimes(v11);
      return { forImage: (given) => (given.endsWith('@1.0.0') ? first : later).forImage(given), release: () => Promise.resolve() };
    },
    requests: () => [...v1.requests, ...v11.requests],
    close: async () => {
      await Promise.all([v1.close(), v11.close()]);
      await rm(root, { recursive: true, force: true });
    },
  };
}

export interface UpgradeHarness {
  paths: RuntimePaths;
  store: WorkloadStore;
  supervisor: FakeSupervisor;
  catalog: FakeRegistryLookup;
  workloads: WorkloadService;
  upgrades: UpgradeService;
  /** `npm install` runs, by package spec. */
  installs: string[];
  close: () => Promise<void>;
}

/** Workload and upgrade services on temporary XDG directories, a fake supervisor and a fake catalog. */
export async function createUpgradeHarness(published: PublishedPackage, secrets: SecretReader): Promise<UpgradeHarness> {
  const root = await mkdtemp(join(tmpdir(), 'toolyard-upgrades-'));
  const home = join(root, 'home');
  const paths = runtimePaths({ XDG_STATE_HOME: join(home, 'state'), XDG_DATA_HOME: join(home, 'data'), XDG_CACHE_HOME: join(home, 'cache') }, home);
  const store = createWorkloadStore(paths);
  const supervisor = createFakeSupervisor(store, systemClock);
  const catalog = createFakeRegistryLookup();
  const installs: string[] = [];
  const packages = published.packages((command, args, options) => {
    if (args[0] === 'install') installs.push(args.find((arg) => arg.startsWith(PACKAGE)) ?? '');
    return runCommand(command, args, options);
  });
  const workloads = createWorkloadService({
    store,
    groups: createGroupStore(paths),
    supervisor: supervisor.control,
    packages,
    secrets,
    paths,
    clock: systemClock,
    logger: silentLogger,
    registry: catalog.lookup,
  });
  const upgrades = createUpgradeService({ workloads, registry: catalog.lookup, packages, secrets });
  return { paths, store, supervisor, catalog, workloads, upgrades, installs, close: () => rm(root, { recursive: true, force: true }) };
}
