import type { KindViews } from '../artifacts/install-routes.js';
import { InstallBody, InstalledSkill, SkillContent, SkillDetails, SkillInstallResponse, SkillList } from '../artifacts/schemas.js';
import type { InstallRecord } from '../artifacts/store.js';

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

export const skillViews: KindViews = {
  schemas: { installed: InstalledSkill, installResponse: SkillInstallResponse, list: SkillList, details: SkillDetails, content: SkillContent, installBody: InstallBody },
  installedKey: 'skill',
  installed: skillView,
  details: (record) => {
    const installed = skillView(record);
    return Promise.resolve({ installed_skill: installed, metadata: installed.metadata, provenance: record.provenance, unsigned: record.unsigned });
  },
  content: ({ text, ...preview }) => ({ ...preview, body: text }),
};
