import { systemClock } from '../../core/clock.js';
import { runtimePaths } from '../paths.js';
import { createEnvironmentSecretReader } from '../secrets/environment.js';
import { createWorkloadStore } from './store.js';
import { runSupervisor, terminationSignal } from './supervisor.js';

/** Supervises one workload in this process until SIGTERM or SIGINT; resolves to the exit code. */
export function superviseWorkload(name: string, env: NodeJS.ProcessEnv): Promise<number> {
  return runSupervisor({
    name,
    store: createWorkloadStore(runtimePaths(env)),
    secrets: createEnvironmentSecretReader(env),
    clock: systemClock,
    env,
    stop: terminationSignal(),
  });
}
