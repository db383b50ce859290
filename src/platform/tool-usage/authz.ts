import type { PlatformAccess } from '../identity/access.js';
import type { ToolUsageService } from './service.js';

/** Every read takes connectorAdmin or auditor (admin passes every check); my activity needs only a directory identity, which the service confirms. */
export function authorizeToolUsage(service: ToolUsageService, access: PlatformAccess): ToolUsageService {
  const read = ['connectorAdmin', 'auditor'] as const;
  return {
    ...service,
    connectorUsage(actor, id, query) {
      access.require(actor, read, "reading a connector's tool-call usage");
      return service.connectorUsage(actor, id, query);
    },
    exportRecords(actor, query) {
      access.require(actor, read, 'exporting tool-call records');
      return service.exportRecords(actor, query);
    },
    topConnectors(actor, query) {
      access.require(actor, read, 'reading the top connectors');
      return service.topConnectors(actor, query);
    },
    topTools(actor, query) {
      access.require(actor, read, 'reading the top tools');
      return service.topTools(actor, query);
    },
    summary(actor, query) {
      access.require(actor, read, 'reading the tool-call usage summary');
      return service.summary(actor, query);
    },
    timeseries(actor, query) {
      access.require(actor, read, 'reading the tool-call time series');
      return service.timeseries(actor, query);
    },
    userUsage(actor, id, query) {
      access.require(actor, read, "reading a user's tool-call usage");
      return service.userUsage(actor, id, query);
    },
  };
}
