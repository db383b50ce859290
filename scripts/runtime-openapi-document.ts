import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { silentLogger } from '../src/core/telemetry/logger.js';
import { buildRuntimeApp } from '../src/runtime/app.js';
import { runtimePaths } from '../src/runtime/paths.js';

/** The local runtime's OpenAPI document, generated from the route schemas of a throwaway app (nothing is written). */
export async function runtimeOpenApiDocument(): Promise<unknown> {
  const home = join(tmpdir(), 'toolyard-openapi');
  const app = await buildRuntimeApp({ paths: runtimePaths({}, home), env: {}, logger: silentLogger, cwd: home, home });
  try {
    return app.http.swagger();
  } finally {
    await app.close();
  }
}
