import type { HttpApp } from '../../core/http/app.js';
import { registerInstallRoutes, type KindViews } from '../artifacts/install-routes.js';
import type { InstallService } from '../artifacts/installs.js';
import { SKILLS } from '../artifacts/kinds.js';
import { InstallBody, InstalledSkill, SkillContent, SkillDetails, SkillInstallResponse, SkillList } from '../artifacts/schemas.js';
import type { InstallRecord } from '../artifacts/store.js';
import type { SyncService } from '../artifacts/sync.js';
import type { UpgradeService } from '../artifacts/upgrade.js';

/** A record as the API shows an installed skill. */
export function skillView(record: InstallRecord): InstalledSkill {
  const { author, description, name, tags, version } = record.metadata;
  return {
    clients: record.clients,
    dependencies: [],
    digest: record.digest,
    installed_at: record.installed_at,
    managed: record.managed,
    metadata: { author, description, name, tags, version },
    project_root: record.project_root,
    reference: record.reference,
    scope: record.scope,
    status: record.status,
    tag: record.tag,
  };
}

const views: KindViews = {
  schemas: { installed: InstalledSkill, installResponse: SkillInstallResponse, list: SkillList, details: SkillDetails, content: SkillContent, installBody: InstallBody },
  installedKey: 'skill',
  installed: skillView,
  details: (record) => {
    const installed = skillView(record);
    return Promise.resolve({ installed_skill: installed, metadata: installed.metadata, provenance: record.provenance, unsigned: record.unsigned });
  },
  content: ({ text, ...preview }) => ({ ...preview, body: text }),
};

/** Installed skills under /api/v1beta/skills. */
export function registerSkillRoutes(app: HttpApp, deps: { installs: InstallService; sync: SyncService; upgrades: UpgradeService }): void {
  registerInstallRoutes(app, { spec: SKILLS, ...deps, views });
}
