import { silentLogger } from '../src/core/telemetry/logger.js';
import { buildRegistryApp } from '../src/registry/app.js';
import { parseRegistryConfig } from '../src/registry/config.js';

/** The registry server's OpenAPI document, generated from the route schemas of a throwaway app. */
export async function registryOpenApiDocument(): Promise<unknown> {
  const app = await buildRegistryApp({ config: parseRegistryConfig({ database: { dataDir: 'memory://' }, auth: { mode: 'anonymous' } }), logger: silentLogger, backgroundSync: false });
  try {
    return app.http.swagger();
  } finally {
    await app.close();
  }
}
