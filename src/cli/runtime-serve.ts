import { readFile } from 'node:fs/promises';
import { InvalidInputError } from '../core/errors.js';
import { createLogger } from '../core/telemetry/logger.js';
import { buildRuntimeApp } from '../runtime/app.js';
import { resolveBinding } from '../runtime/http/binding.js';
import { runtimePaths } from '../runtime/paths.js';
import { superviseWorkload } from '../runtime/workloads/supervise.js';

export async function serve(options: { address: string; allowRemote: boolean; tokenFile?: string }): Promise<void> {
  const binding = await resolveBinding({ ...options, readFile: (path) => readFile(path, 'utf8') });
  const logger = createLogger({ name: 'runtime' });
  const app = await buildRuntimeApp({
    paths: runtimePaths(process.env),
    env: process.env,
    logger,
    cwd: process.cwd(),
    boundHost: binding.host,
    token: binding.token,
  });
  try {
    await app.http.listen({ host: binding.host, port: binding.port });
  } catch (error) {
    await app.close();
    const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    throw new InvalidInputError(`--address: cannot listen on ${options.address} (${reason})`);
  }
  const stop = async (signal: string) => {
    // the workloads keep running: their supervisors are separate processes
    logger.info({ signal }, 'shutting down');
    await app.close();
    process.exit(0);
  };
  process.once('SIGINT', (signal) => void stop(signal));
  process.once('SIGTERM', (signal) => void stop(signal));
}

/** Runs one workload's supervisor in the foreground, as the launcher's own entry file does. */
export async function supervise(name: string): Promise<void> {
  process.exitCode = await superviseWorkload(name, process.env);
}
