import type { PlatformContext } from '../context.js';
import { authorizeDirectory } from './authz.js';
import { registerDirectoryRoutes } from './routes.js';
import { GroupSchema, UserSchema } from './schemas.js';
import { createDirectoryService } from './service.js';

/** The directory: users and (nested) groups under /v1. SCIM provisioning writes the same tables. */
export function registerDirectoryFeature(context: PlatformContext): void {
  const { http, db, clock, ids, audit, access, changes } = context;
  http.addSchema(UserSchema);
  http.addSchema(GroupSchema);
  const service = createDirectoryService({ db, clock, ids, audit, changes });
  registerDirectoryRoutes(http, { service: authorizeDirectory(service, access), access });
}
