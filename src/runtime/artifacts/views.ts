import type { InstalledSkill } from './schemas.js';
import type { InstallRecord } from './store.js';

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
