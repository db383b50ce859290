import { silentLogger } from '../core/telemetry/logger.js';
import { runtimePaths } from '../runtime/paths.js';
import { createRuntimeServices, type RuntimeServices } from '../runtime/services.js';

/** The CLI's view of the runtime: the same library and files as `runtime serve`, configured from this process. */
export function openRuntime(): RuntimeServices {
  return createRuntimeServices({ paths: runtimePaths(process.env), env: process.env, logger: silentLogger, cwd: process.cwd() });
}
