import type { HttpApp } from '../../core/http/app.js';
import { registerInstallRoutes } from '../artifacts/install-routes.js';
import type { InstallService } from '../artifacts/installs.js';
import { PLUGINS } from '../artifacts/kinds.js';
import type { SyncService } from '../artifacts/sync.js';
import type { UpgradeService } from '../artifacts/upgrade.js';
import { pluginViews } from './views.js';

/** Installed plugins under /api/v1beta/plugins. */
export function registerPluginRoutes(app: HttpApp, deps: { installs: InstallService; sync: SyncService; upgrades: UpgradeService }): void {
  registerInstallRoutes(app, { spec: PLUGINS, ...deps, views: pluginViews(deps.installs) });
}
