import { systemClock } from '../../core/clock.js';
import { runtimePaths } from '../paths.js';
import { createSecretsService } from '../secrets/service.js';
import { createWorkloadStore } from './store.js';
import { runSupervisor, terminationSignal } from './supervisor.js';

/** Supervises one workload in this process until SIGTERM or SIGINT; resolves to the exit code. */
export function superviseWorkload(name: string, env: NodeJS.ProcessEnv): Promise<number> {
  const paths = runtimePaths(env);
  return runSupervisor({
    name,
    store: createWorkloadStore(paths),
    secrets: createSecretsService({ paths, env }).reader(),
    clock: systemClock,
    env,
    stop: terminationSignal(),
  });
}
