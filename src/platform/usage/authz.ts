import type { PlatformAccess } from '../identity/access.js';
import type { UsageService } from './service.js';

/**
 * Every user's charges, events, series and the export take billingAdmin or auditor (admin passes every
 * check); own reads need only a directory identity, which the service confirms.
 */
export function authorizeUsage(service: UsageService, access: PlatformAccess): UsageService {
  const read = ['billingAdmin', 'auditor'] as const;
  return {
    ...service,
    listCharges(actor, query) {
      access.require(actor, read, "listing every user's charges");
      return service.listCharges(actor, query);
    },
    listUsageEvents(actor, query) {
      access.require(actor, read, "listing every user's usage events");
      return service.listUsageEvents(actor, query);
    },
    series(actor, query) {
      access.require(actor, read, 'reading the spend series');
      return service.series(actor, query);
    },
    exportSpend(actor, query) {
      access.require(actor, read, 'exporting spend');
      return service.exportSpend(actor, query);
    },
  };
}
