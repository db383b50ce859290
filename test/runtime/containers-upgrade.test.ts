import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/core/clock.js';
import { silentLogger } from '../../src/core/telemetry/logger.js';
import { ContainerRunSpec } from '../../src/runtime/containers/schemas.js';
import { createPackageRuntimes } from '../../src/runtime/packages/index.js';
import { runtimePaths } from '../../src/runtime/paths.js';
import { createEnvironmentSecretReader } from '../../src/runtime/secrets/environment.js';
import { createGroupStore } from '../../src/runtime/workloads/groups.js';
import { containerEntry, createFakeRegistryLookup, type FakeRegistryLookup } from '../../src/runtime/workloads/registry-testing.js';
import { createWorkloadService, type WorkloadService } from '../../src/runtime/workloads/service.js';
import { createWorkloadStore } from '../../src/runtime/workloads/store.js';
import { createFakeSupervisor } from '../../src/runtime/workloads/supervision-testing.js';
import { createUpgradeService, type UpgradeService } from '../../src/runtime/workloads/upgrades.js';
import { startFakeDockerEngine, type FakeDockerEngine } from '../helpers/fake-docker-engine.js';

const REPOSITORY = 'registry.example/acme/weather';
const IMAGE = { entrypoint: [process.execPath, '-e', 'setInterval(() => undefined, 1000)'] };

describe('upgrading an image workload', () => {
  let root: string;
  let fake: FakeDockerEngine;
  let catalog: FakeRegistryLookup;
  let workloads: WorkloadService;
  let upgrades: UpgradeService;

  const publish = (version: string, permissions: Record<string, unknown> = {}) =>
    catalog.servers.set('weather', containerEntry('weather', `${REPOSITORY}:${version}`, { version, permissions }));
  /** The container the workload's runner would create, from its saved command. */
  const spec = async (): Promise<ContainerRunSpec> => {
    const args = (await workloads.exportConfig('weather')).command?.args ?? [];
    return JSON.parse(args.find((arg) => arg.startsWith('{')) ?? '{}') as ContainerRunSpec;
  };
  const pulls = () => fake.requests.filter((request) => request.path === '/images/create').map((request) => `${request.query.get('fromImage') ?? ''}:${request.query.get('tag') ?? ''}`);

  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'toolyard-container-upgrades-'));
    fake = await startFakeDockerEngine({ socketPath: join(root, 'engine.sock'), registry: { [`${REPOSITORY}:1.0.0`]: IMAGE } });
    const paths = runtimePaths({ XDG_STATE_HOME: join(root, 'state'), XDG_DATA_HOME: join(root, 'data'), XDG_CACHE_HOME: join(root, 'cache') }, root);
    const store = createWorkloadStore(paths);
    const secrets = createEnvironmentSecretReader({});
    const packages = createPackageRuntimes({ cacheDir: paths.cache, env: { DOCKER_HOST: `unix://${fake.socketPath}` }, cwd: root });
    catalog = createFakeRegistryLookup();
    workloads = createWorkloadService({
      store,
      groups: createGroupStore(paths),
      supervisor: createFakeSupervisor(store, systemClock).control,
      packages,
      secrets,
      paths,
      clock: systemClock,
      logger: silentLogger,
      registry: catalog.lookup,
    });
    upgrades = createUpgradeService({ workloads, registry: catalog.lookup, packages, secrets });
    publish('1.0.0');
    await workloads.create({ registry: 'default', server: 'weather' });
  });
  afterEach(async () => {
    await fake.close();
    await rm(root, { recursive: true, force: true });
  });

  it('keeps the workload as it was when the candidate cannot be pulled (422)', async () => {
    publish('2.0.0');
    const before = await workloads.exportConfig('weather');
    await expect(upgrades.apply('weather')).rejects.toMatchObject({ status: 422, message: expect.stringMatching(/2\.0\.0 cannot be prepared, so weather was left as it was: could not pull/) as unknown });
    expect(pulls()).toEqual([`${REPOSITORY}:1.0.0`, `${REPOSITORY}:2.0.0`]);
    expect(await workloads.exportConfig('weather')).toEqual(before);
  });

  it('pulls and inspects the candidate first, then recreates the container from it; privileged only as the new entry says', async () => {
    const before = await spec();
    expect((before.body as { HostConfig: { Privileged: boolean } }).HostConfig.Privileged).toBe(false);
    fake.registry.set(`${REPOSITORY}:2.0.0`, IMAGE);
    publish('2.0.0', { privileged: true });
    const result = await upgrades.apply('weather');
    expect(result).toMatchObject({ status: 'upgraded', current_image: `${REPOSITORY}:1.0.0`, candidate_image: `${REPOSITORY}:2.0.0` });
    // the check's pull, then the edit's (which an engine answers at once: the image is up to date)
    expect(pulls()).toEqual([`${REPOSITORY}:1.0.0`, `${REPOSITORY}:2.0.0`, `${REPOSITORY}:2.0.0`]);
    const after = await spec();
    expect(after.name).toBe(before.name);
    expect(after.body).toMatchObject({ Labels: { 'dev.toolyard.image': `${REPOSITORY}:2.0.0` }, HostConfig: { Privileged: true, CapDrop: [] } });
    expect((after.body as { Image: string }).Image).not.toBe((before.body as { Image: string }).Image);
  });
});
