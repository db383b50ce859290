import { join } from 'node:path';
import type { Clock } from '../../core/clock.js';
import type { ClientDirs, ClientType } from '../clients/catalog.js';
import type { RuntimePaths } from '../paths.js';
import type { GroupStore } from '../workloads/groups.js';
import { createBuildService, type BuildService } from './builds.js';
import { createInstallService, type InstallService } from './installs.js';
import type { KindSpec } from './kinds.js';
import { createLayoutStore } from './layout.js';
import { skillPlacement } from './placement.js';
import { pluginPlacement } from '../plugins/placement.js';
import type { KeylessSigner } from './keyless.js';
import { createPushService, type PushService } from './push.js';
import type { CatalogPackages } from '../registry/packages.js';
import { catalogNameResolver } from './references/catalog-name.js';
import { gitResolver } from './references/git.js';
import { localBuildResolver } from './references/local-build.js';
import { ociResolver } from './references/oci.js';
import type { OciClient } from './references/oci-client.js';
import { withMarketplaces } from './references/marketplace.js';
import { chainResolvers } from './references/resolver.js';
import { createRecordStore } from './store.js';
import { createSyncService, type SyncService } from './sync.js';
import type { TrustSource } from './trusted-root.js';
import { createUpgradeService, type UpgradeService } from './upgrade.js';

/** Everything the API and the CLI do with one kind of artifact. */
export interface ArtifactServices {
  spec: KindSpec;
  builds: BuildService;
  pushes: PushService;
  installs: InstallService;
  sync: SyncService;
  upgrades: UpgradeService;
}

export interface ArtifactServiceOptions {
  paths: RuntimePaths;
  env: Record<string, string | undefined>;
  dirs: ClientDirs;
  groups: GroupStore;
  installedClients: () => Promise<ClientType[]>;
  clock: Clock;
  /** The OCI distribution client artifacts are pushed and pulled with. */
  registry: OciClient;
  /** The configured registry, where catalog names are looked up. */
  catalog: CatalogPackages;
  /** The trusted root certificate signatures verify against. */
  trust: TrustSource;
  /** Signs pushes given an identity token. */
  keyless: KeylessSigner;
}

export function createArtifactServices(spec: KindSpec, options: ArtifactServiceOptions): ArtifactServices {
  const layout = createLayoutStore(join(options.paths.data, 'oci'));
  const builds = createBuildService({ spec, layout });
  const records = createRecordStore(options.paths, spec.kind);
  const git = gitResolver({ env: options.env });
  const oci = ociResolver(options.registry, options.trust);
  const installs = createInstallService({
    spec,
    records,
    // the order of clarification point 3; a plugin marketplace, when one is named, resolves the name instead (3 (e))
    resolver: withMarketplaces(chainResolvers([git, localBuildResolver(builds), oci, catalogNameResolver({ catalog: options.catalog, git, oci })])),
    placement: spec.kind === 'skills' ? skillPlacement(options.dirs) : pluginPlacement(options.dirs),
    installedClients: options.installedClients,
    groups: options.groups,
    scratchRoot: join(options.paths.cache, 'artifacts'),
    clock: options.clock,
  });
  return { spec, builds, pushes: createPushService({ spec, layout, registry: options.registry, keyless: options.keyless, stateDir: options.paths.state, clock: options.clock }), installs, sync: createSyncService({ spec, records, installs, trust: options.trust }), upgrades: createUpgradeService({ spec, installs }) };
}
