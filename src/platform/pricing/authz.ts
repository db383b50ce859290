import type { PlatformAccess } from '../identity/access.js';
import type { PricingService } from './service.js';

/** Pricing reads take billingAdmin or auditor; writes billingAdmin (admin passes every check). */
export function authorizePricing(service: PricingService, access: PlatformAccess): PricingService {
  const read = ['billingAdmin', 'auditor'] as const;
  const write = ['billingAdmin'] as const;
  return {
    ...service,
    getCatalog(actor) {
      access.require(actor, read, 'reading the pricing catalog');
      return service.getCatalog(actor);
    },
    replaceCatalog(actor, body, ifMatch) {
      access.require(actor, write, 'replacing the pricing catalog');
      return service.replaceCatalog(actor, body, ifMatch);
    },
    listVersions(actor) {
      access.require(actor, read, 'listing pricing versions');
      return service.listVersions(actor);
    },
    getVersion(actor, effectiveFrom) {
      access.require(actor, read, 'reading a pricing version');
      return service.getVersion(actor, effectiveFrom);
    },
    getEntry(actor, provider, model) {
      access.require(actor, read, 'reading a pricing entry');
      return service.getEntry(actor, provider, model);
    },
    putEntry(actor, provider, model, body, ifMatch) {
      access.require(actor, write, 'writing a pricing entry');
      return service.putEntry(actor, provider, model, body, ifMatch);
    },
    deleteEntry(actor, provider, model, ifMatch) {
      access.require(actor, write, 'deleting a pricing entry');
      return service.deleteEntry(actor, provider, model, ifMatch);
    },
    deleteStagedVersion(actor, effectiveFrom) {
      access.require(actor, write, 'deleting a staged pricing version');
      return service.deleteStagedVersion(actor, effectiveFrom);
    },
  };
}
