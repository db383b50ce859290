import { Counter } from 'prom-client';
import type { PlatformContext } from '../context.js';
import { loadSigningKeys } from '../signing/keyset.js';
import { authorizeClientConfig } from './authz.js';
import { registerClientConfigRoutes } from './routes.js';
import { DirectivesSchema, EnvelopeSchema } from './schemas.js';
import { createClientConfigService } from './service.js';
import { kidsOfValidEnvelopes } from './store.js';

/** Signed client configuration: directives, the envelope, the JWKS, RFC 9728 metadata and discovery. */
export async function registerClientConfigFeature(context: PlatformContext): Promise<void> {
  const { http, db, clock, ids, audit, access, config, logger } = context;
  const signing = await loadSigningKeys(config.signing);
  if (!signing) logger.warn('no signing block: GET /v1/configuration answers 503 until signing.keys is configured');
  else {
    const published = new Set(signing.keys.map((key) => key.kid));
    const retiredEarly = (await kidsOfValidEnvelopes(db, clock.now())).filter((kid) => !published.has(kid));
    if (retiredEarly.length > 0) {
      logger.warn({ kids: retiredEarly }, 'signing keys were removed while envelopes they signed are still valid: clients holding those envelopes cannot verify them; keep retired keys in signing.keys (not first) until then');
    }
  }
  http.addSchema(DirectivesSchema);
  http.addSchema(EnvelopeSchema);
  const requests = new Counter({
    name: 'toolyard_platform_configuration_requests_total',
    help: 'Enterprise configuration requests by client type and version',
    labelNames: ['client_type', 'client_version'],
    registers: [context.metrics],
  });
  const service = createClientConfigService({ db, clock, ids, audit, signing });
  registerClientConfigRoutes(http, { service: authorizeClientConfig(service, access), access, config, requests });
}
