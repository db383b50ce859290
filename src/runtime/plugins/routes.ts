import type { HttpApp } from '../../core/http/app.js';
import { InvalidInputError } from '../../core/errors.js';
import { registerInstallRoutes, type KindViews } from '../artifacts/install-routes.js';
import type { InstallService } from '../artifacts/installs.js';
import { PLUGINS } from '../artifacts/kinds.js';
import { InstalledPlugin, PluginContent, PluginDetails, PluginInstallBody, PluginInstallResponse, PluginList } from '../artifacts/schemas.js';
import type { InstallRecord } from '../artifacts/store.js';
import type { SyncService } from '../artifacts/sync.js';
import type { UpgradeService } from '../artifacts/upgrade.js';
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
    metadata: { author, description, keywords: tags, license, name, version },
    project_root: record.project_root,
    reference: record.reference,
    scope: record.scope,
    signature: record.provenance?.signer_identity ?? '',
    status: record.status,
    tag: record.tag,
  };
}

/** Installed plugins under /api/v1beta/plugins. */
export function registerPluginRoutes(app: HttpApp, deps: { installs: InstallService; sync: SyncService; upgrades: UpgradeService }): void {
  const views: KindViews = {
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
        trust_unrecorded: await deps.installs.trustUnrecorded(record),
        unmaterialized_components: unmaterializedComponents(record.clients, record.components),
        unsigned: record.unsigned,
      };
    },
    content: ({ text, ...preview }) => ({ ...preview, manifest: text }),
    checkInstall: (body) => {
      if (body.marketplace !== undefined) throw new InvalidInputError('plugin marketplaces are not supported by this runtime yet; install the plugin by its git:// reference or a local build tag');
    },
  };
  registerInstallRoutes(app, { spec: PLUGINS, ...deps, views });
}
