import type { HttpApp } from '../../core/http/app.js';
import { registerInstallRoutes } from '../artifacts/install-routes.js';
import type { InstallService } from '../artifacts/installs.js';
import { SKILLS } from '../artifacts/kinds.js';
import type { SyncService } from '../artifacts/sync.js';
import type { UpgradeService } from '../artifacts/upgrade.js';
import { skillViews } from './views.js';

/** Installed skills under /api/v1beta/skills. */
export function registerSkillRoutes(app: HttpApp, deps: { installs: InstallService; sync: SyncService; upgrades: UpgradeService }): void {
  registerInstallRoutes(app, { spec: SKILLS, ...deps, views: skillViews });
}
