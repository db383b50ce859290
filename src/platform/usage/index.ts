import type { PlatformContext } from '../context.js';
import { authorizeUsage } from './authz.js';
import { createRetentionJob } from './retention.js';
import { registerUsageRoutes } from './routes.js';
import { ChargeSchema, SeriesSchema, UsageEventSchema } from './schemas.js';
import { createUsageService } from './service.js';

/** Charges and usage events: their reads, the spend series and export, and retention. */
export function registerUsageFeature(context: PlatformContext): void {
  const { http, db, clock, access, identity, logger, config } = context;
  http.addSchema(ChargeSchema);
  http.addSchema(UsageEventSchema);
  http.addSchema(SeriesSchema);
  const { retentionDays } = config.usage;
  const service = createUsageService({ db, clock, identity, logger, retentionDays, spendExport: config.experiments.spendExport });
  registerUsageRoutes(http, { service: authorizeUsage(service, access), access });

  const retention = createRetentionJob({ db, clock, logger, retentionDays });
  context.lifecycle.onStart(() => retention.start());
  context.lifecycle.onClose(() => retention.stop());
}
