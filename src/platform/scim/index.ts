import type { PlatformContext } from '../context.js';
import { loadProvisioners } from './provisioners.js';
import { registerScimRoutes } from './routes.js';
import { createScimService } from './service.js';

/** SCIM 2.0 provisioning, one base URL per configured provisioner, writing the directory's tables. */
export async function registerScimFeature(context: PlatformContext): Promise<void> {
  const { http, db, clock, ids, audit, changes, hooks, config } = context;
  const provisioners = await loadProvisioners(config);
  const service = createScimService({ db, clock, ids, audit, changes, hooks });
  await registerScimRoutes(http, { service, provisioners, config });
}
