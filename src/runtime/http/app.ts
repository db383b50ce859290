import swagger from '@fastify/swagger';
import { Type } from '@sinclair/typebox';
import type { Logger } from 'pino';
import { createHttpApp, type HttpApp } from '../../core/http/app.js';
import { registerGroupRoutes } from '../workloads/group-routes.js';
import { API_PREFIX, registerWorkloadRoutes } from '../workloads/routes.js';
import { registerArtifactRoutes } from '../artifacts/routes.js';
import { registerPluginRoutes } from '../plugins/routes.js';
import { registerSkillRoutes } from '../skills/routes.js';
import { registerClientRoutes } from '../clients/routes.js';
import { registerEnterpriseRoutes } from '../enterprise/routes.js';
import { registerRegistryRoutes } from '../registry/routes.js';
import { registerSecretsRoutes } from '../secrets/routes.js';
import type { RuntimeServices } from '../services.js';
import { registerUpgradeRoutes } from '../workloads/upgrade-routes.js';
import { registerHostGuard } from './host-guard.js';
import { SHARED_SCHEMAS } from './schemas.js';
import { registerTokenAuth } from './token-auth.js';

export interface RuntimeHttpOptions {
  logger: Logger;
  version: string;
  services: Omit<RuntimeServices, 'store'>;
  /** The host the server listens on; the DNS-rebinding guard admits it besides the loopback names. */
  boundHost: string;
  /** When set, every route but /health needs `Authorization: Bearer <token>`. */
  token?: string | undefined;
}

/** The local runtime API, built from injected services; `runtime serve` and the tests build the same app. */
export async function createRuntimeHttpApp(options: RuntimeHttpOptions): Promise<HttpApp> {
  const app = createHttpApp({ logger: options.logger });
  await app.register(swagger, {
    // shared schemas keep their own names in the document instead of def-0, def-1, ...
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, index) => (typeof json.$id === 'string' ? json.$id : `def-${index}`) },
    openapi: {
      openapi: '3.1.0',
      info: { title: 'Toolyard local runtime', version: options.version, description: 'Run MCP servers as supervised workloads behind a local HTTP proxy' },
      ...(options.token !== undefined && {
        components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
        security: [{ bearer: [] }],
      }),
    },
  });
  for (const schema of SHARED_SCHEMAS) app.addSchema(schema);
  registerHostGuard(app, { boundHost: options.boundHost, tokenConfigured: options.token !== undefined });
  if (options.token !== undefined) registerTokenAuth(app, options.token);

  const tags = ['public'];
  app.get('/health', { schema: { tags, summary: 'Liveness', response: { 200: Type.Object({ status: Type.String() }) } } }, () => ({ status: 'ok' }));
  app.get(`${API_PREFIX}/version`, { schema: { tags, summary: 'Version of this runtime', response: { 200: Type.Object({ version: Type.String() }) } } }, () => ({
    version: options.version,
  }));
  app.get('/openapi.json', { schema: { tags, summary: 'This OpenAPI document', hide: true } }, () => app.swagger());
  const { services } = options;
  registerWorkloadRoutes(app, services.workloads, options.logger);
  registerGroupRoutes(app, services.groups);
  registerUpgradeRoutes(app, services);
  registerRegistryRoutes(app, services);
  registerClientRoutes(app, services);
  registerSecretsRoutes(app, services);
  registerEnterpriseRoutes(app, services);
  registerArtifactRoutes(app, services.skills);
  registerArtifactRoutes(app, services.plugins);
  registerSkillRoutes(app, services.skills);
  registerPluginRoutes(app, services.plugins);
  await app.ready();
  return app;
}
