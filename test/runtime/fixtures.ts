import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Clock } from '../../src/core/clock.js';
import { silentLogger } from '../../src/core/telemetry/logger.js';
import { buildRuntimeApp, type RuntimeApp } from '../../src/runtime/app.js';
import { runtimePaths } from '../../src/runtime/paths.js';
import { createWorkloadStore, type WorkloadStore } from '../../src/runtime/workloads/store.js';
import type { SupervisorControl } from '../../src/runtime/workloads/supervision.js';
import { SOURCES_NODE_OPTIONS } from '../../src/runtime/workloads/supervisor-testing.js';

/** `npx://` + the installed server-everything directory: run in place, nothing is downloaded. */
export const EVERYTHING = `npx://${dirname(createRequire(import.meta.url).resolve('@modelcontextprotocol/server-everything/package.json'))}`;

/** XDG directories of their own, so a test sees only its workloads; PATH and HOME pass for the toolchains. */
export async function runtimeEnv(extra: Record<string, string> = {}): Promise<{ dir: string; env: Record<string, string> }> {
  const dir = await mkdtemp(join(tmpdir(), 'toolyard-runtime-'));
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? dir,
    // the supervisors run from source, as the app here does
    NODE_OPTIONS: SOURCES_NODE_OPTIONS,
    XDG_STATE_HOME: join(dir, 'state'),
    XDG_DATA_HOME: join(dir, 'data'),
    XDG_CACHE_HOME: join(dir, 'cache'),
    XDG_CONFIG_HOME: join(dir, 'config'),
    ...extra,
  };
  return { dir, env };
}

/**
 * A stand-in for the detached supervisors, for tests of the API's shape: `start` records `running`
 * at once (naming this test process, so the status reads as alive) and `stop` only forgets it.
 */
export function fakeSupervisorControl(store: WorkloadStore): SupervisorControl {
  const running = new Set<string>();
  return {
    start: async (name) => {
      const now = new Date().toISOString();
      const self = { pid: process.pid, start_time: `fake:${name}` };
      await store.writeStatus(name, { status: 'running', status_context: '', started_at: now, supervisor: self, server: self, restarts: 0, updated_at: now });
      running.add(name);
    },
    stop: (name) => {
      running.delete(name);
      return Promise.resolve();
    },
    alive: (record) => {
      const alive = running.has(record.supervisor?.start_time.replace(/^fake:/, '') ?? '');
      return Promise.resolve({ supervisor: alive, server: alive });
    },
  };
}

export interface TestRuntime {
  app: RuntimeApp;
  env: Record<string, string>;
  /** Where client applications keep their configuration files for this runtime. */
  home: string;
  close: () => Promise<void>;
}

/** The real app on temp directories, with real supervisors or the fake above. */
export async function testRuntime(
  options: { supervisor: 'real' | 'fake'; env?: Record<string, string>; token?: string; boundHost?: string; clock?: Clock },
): Promise<TestRuntime> {
  const { dir, env } = await runtimeEnv(options.env);
  const paths = runtimePaths(env);
  const home = join(dir, 'home');
  const built = await buildRuntimeApp({
    paths,
    env,
    logger: silentLogger,
    cwd: dir,
    home,
    ...(options.supervisor === 'fake' && { supervisor: fakeSupervisorControl(createWorkloadStore(paths)) }),
    ...(options.token !== undefined && { token: options.token }),
    ...(options.boundHost !== undefined && { boundHost: options.boundHost }),
    ...(options.clock !== undefined && { clock: options.clock }),
  });
  return {
    app: built,
    env,
    home,
    close: async () => {
      // supervisors are detached processes: remove every workload so none outlives the test
      const names = (await built.workloads.list({ all: true })).map((workload) => workload.name);
      if (names.length > 0) await (await built.workloads.remove(names)).done;
      await built.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
