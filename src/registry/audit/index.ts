export { createAuditLog, noAuditLog, type AuditLog } from './audit-log.js';
export { AUDIT_EVENTS, type AuditEventName, type AuditOutcome, type AuditRecord } from './events.js';
export { resourceExists } from './store.js';
export { registerHttpAudit, type HttpAudit } from './http-audit.js';
