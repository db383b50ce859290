import { silentLogger } from '../src/core/telemetry/logger.js';
import { buildRegistryApp } from '../src/registry/app.js';
import { parseRegistryConfig } from '../src/registry/config.js';

/** The registry server's OpenAPI document, generated from the route schemas of a throwaway app. */
export async function registryOpenApiDocument(): Promise<unknown> {
  const app = await buildRegistryApp({ config: parseRegistryConfig({
      database: { dataDir: 'memory://' },
      // oauth mode, so the document shows the bearer scheme and the RFC 9728 route; nothing is fetched
      auth: { mode: 'oauth', oauth: { resourceUrl: 'https://registry.example.com', providers: [{ name: 'idp', issuerUrl: 'https://idp.example.com', audience: 'registry' }] } },
    }), logger: silentLogger, backgroundSync: false });
  try {
    return app.http.swagger();
  } finally {
    await app.close();
  }
}
