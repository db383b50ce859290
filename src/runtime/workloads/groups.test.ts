import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../core/clock.js';
import { ConflictError, InvalidInputError, NotFoundError } from '../../core/errors.js';
import { silentLogger } from '../../core/telemetry/logger.js';
import { createPackageRuntimes } from '../packages/index.js';
import { runtimePaths } from '../paths.js';
import { createEnvironmentSecretReader } from '../secrets/environment.js';
import { createGroupService, createGroupStore, type GroupService } from './groups.js';
import { createWorkloadService, type WorkloadService } from './service.js';
import { createWorkloadStore } from './store.js';
import { createFakeSupervisor, type FakeSupervisor } from './supervision-testing.js';

describe('groups (fake supervisor)', () => {
  let root: string;
  let image: string;
  let workloads: WorkloadService;
  let groups: GroupService;
  let supervisor: FakeSupervisor;

  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'toolyard-groups-'));
    const home = join(root, 'home');
    const paths = runtimePaths({ XDG_STATE_HOME: join(home, 'state'), XDG_DATA_HOME: join(home, 'data'), XDG_CACHE_HOME: join(home, 'cache') }, home);
    const server = join(root, 'server');
    await mkdir(server, { recursive: true });
    await writeFile(join(server, 'package.json'), JSON.stringify({ name: 'server', bin: 'index.js' }));
    image = `npx://${server}`;
    const store = createWorkloadStore(paths);
    const groupStore = createGroupStore(paths);
    supervisor = createFakeSupervisor(store, systemClock);
    workloads = createWorkloadService({
      store,
      groups: groupStore,
      supervisor: supervisor.control,
      packages: createPackageRuntimes({ cacheDir: paths.cache, env: { HOME: home }, cwd: root }),
      secrets: createEnvironmentSecretReader({}),
      paths,
      clock: systemClock,
      logger: silentLogger,
    });
    groups = createGroupService({ groups: groupStore, store, workloads });
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('has default from the start; creating an existing group is 409 and an unknown one is 404', async () => {
    expect(await groups.list()).toEqual([{ name: 'default', registered_clients: [] }]);
    expect(await groups.create('research')).toEqual({ name: 'research', registered_clients: [] });
    await expect(groups.create('research')).rejects.toThrow(ConflictError);
    await expect(groups.create('default')).rejects.toThrow(ConflictError);
    expect((await groups.list()).map((group) => group.name)).toEqual(['default', 'research']);
    await expect(groups.get('nope')).rejects.toThrow(NotFoundError);
    await expect(groups.create('../etc')).rejects.toThrow(InvalidInputError);
  });

  it('refuses to delete default', async () => {
    await expect(groups.remove('default', { withWorkloads: false })).rejects.toThrow('the default group cannot be deleted');
  });

  it('deleting a group moves its workloads to default, rewriting their configuration, and leaves other groups alone', async () => {
    await groups.create('research');
    await groups.create('ops');
    await workloads.create({ name: 'r1', image, group: 'research' });
    await workloads.create({ name: 'o1', image, group: 'ops' });
    await groups.remove('research', { withWorkloads: false });

    await expect(groups.get('research')).rejects.toThrow(NotFoundError);
    expect(await workloads.namesInGroup('default')).toEqual(['r1']);
    expect(await workloads.get('r1')).toMatchObject({ group: 'default' });
    expect((await workloads.exportConfig('r1')).request.group).toBe('default');
    expect(await workloads.namesInGroup('ops')).toEqual(['o1']);
    expect((await workloads.status('r1')).status).toBe('running');
  });

  it('deleting a group with its workloads stops and removes them', async () => {
    await groups.create('research');
    await workloads.create({ name: 'r1', image, group: 'research' });
    await workloads.create({ name: 'd1', image });
    await groups.remove('research', { withWorkloads: true });
    expect(supervisor.stops).toEqual(['r1']);
    expect((await workloads.list({ all: true })).map((summary) => summary.name)).toEqual(['d1']);
  });
});
