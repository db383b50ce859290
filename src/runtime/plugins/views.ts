import type { KindViews } from '../artifacts/install-routes.js';
import type { InstallService } from '../artifacts/installs.js';
import { InstalledPlugin, PluginContent, PluginDetails, PluginInstallBody, PluginInstallResponse, PluginList } from '../artifacts/schemas.js';
import type { InstallRecord } from '../artifacts/store.js';
import { unmaterializedComponents } from './components.js';

/** A record as the API shows an installed plugin. */
export function pluginView(record: InstallRecord): InstalledPlugin {
  const { author, description, license, name, tags, version } = record.metadata;
  return {
    clients: record.clients,
    components: record.components,
    dependencies: [],
    digest: record.digest,
    installed_at: record.installed_at,
    managed: record.managed,
    marketplace: record.marketplace ?? '',
    metadata: { author, description, keywords: tags, license, name, version },
    project_root: record.project_root,
    reference: record.reference,
    scope: record.scope,
    signature: record.provenance?.signer_identity ?? '',
    status: record.status,
    tag: record.tag,
  };
}

/** How plugins look in the API; details need the install service for the lock file's trust record. */
export function pluginViews(installs: InstallService): KindViews {
  return {
    schemas: { installed: InstalledPlugin, installResponse: PluginInstallResponse, list: PluginList, details: PluginDetails, content: PluginContent, installBody: PluginInstallBody },
    installedKey: 'plugin',
    installed: pluginView,
    details: async (record) => {
      const installed = pluginView(record);
      return {
        installed_plugin: installed,
        metadata: installed.metadata,
        // both plugin clients take plugins in project scope as in user scope
        project_scope_degraded_clients: [],
        provenance: record.provenance,
        trust_unrecorded: await installs.trustUnrecorded(record),
        unmaterialized_components: unmaterializedComponents(record.clients, record.components),
        unsigned: record.unsigned,
      };
    },
    content: ({ text, ...preview }) => ({ ...preview, manifest: text }),
  };
}
