import type { LLM_WIRE_FORMATS } from '../config.js';
import type { PlatformContext } from '../context.js';
import { authorizePricing } from './authz.js';
import { createPricingCatalog, type PricingCatalog } from './catalog.js';
import { registerPricingRoutes } from './routes.js';
import { CatalogSchema, EntrySchema, VersionSchema, type Vendor } from './schemas.js';
import { createPricingService } from './service.js';

/** What the LLM gateway takes from pricing: the catalog in effect on this replica. */
export interface PricingFeature {
  catalog: PricingCatalog;
}

/** The rate block of each upstream wire format (PLATFORM-API Part 3 §1, Upstreams). */
const VENDOR_OF_FORMAT: Record<(typeof LLM_WIRE_FORMATS)[number], Vendor> = { anthropic: 'vendor_a', openai: 'vendor_b', gemini: 'vendor_c' };

/** The pricing catalog: its versions, the /v1/budgets/pricing routes and the in-memory catalog in effect. */
export async function registerPricingFeature(context: PlatformContext): Promise<PricingFeature> {
  const { http, db, clock, ids, audit, access, changes, logger, config } = context;
  http.addSchema(EntrySchema);
  http.addSchema(CatalogSchema);
  http.addSchema(VersionSchema);
  const catalog = createPricingCatalog({ db, changes, clock, logger });
  const providerFormats = Object.fromEntries(config.llmGateway.providers.map((provider) => [provider.name, VENDOR_OF_FORMAT[provider.wireFormat]]));
  const service = createPricingService({ db, clock, ids, audit, changes, catalog, logger, baseline: config.pricing.baseline, providerFormats });
  registerPricingRoutes(http, { service: authorizePricing(service, access), access });

  await service.publishBaseline();
  await catalog.load();
  // versions published between the load and the change feed's first reading are read once it has one
  context.lifecycle.onStart(() => void changes.check().then(() => catalog.refresh()).catch(() => undefined));
  return { catalog };
}
