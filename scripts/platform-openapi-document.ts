import { silentLogger } from '../src/core/telemetry/logger.js';
import { buildPlatformApp } from '../src/platform/app.js';
import { parsePlatformConfig } from '../src/platform/config.js';

/** The platform's OpenAPI document, generated from the route schemas of a throwaway app. */
export async function platformOpenApiDocument(): Promise<unknown> {
  const app = await buildPlatformApp({
    config: parsePlatformConfig({
      database: { dataDir: 'memory://' },
      // oauth mode, so the document shows the bearer scheme; nothing is fetched
      auth: { mode: 'oauth', oauth: { resourceUrl: 'https://platform.example.com', providers: [{ name: 'idp', issuerUrl: 'https://idp.example.com', audience: 'platform' }] } },
    }),
    logger: silentLogger,
  });
  try {
    return app.http.swagger();
  } finally {
    await app.close();
  }
}
