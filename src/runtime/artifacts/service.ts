import { join } from 'node:path';
import type { RuntimePaths } from '../paths.js';
import { createBuildService, type BuildService } from './builds.js';
import type { KindSpec } from './kinds.js';
import { createLayoutStore } from './layout.js';

/** Everything the API and the CLI do with one kind of artifact. */
export interface ArtifactServices {
  spec: KindSpec;
  builds: BuildService;
}

export interface ArtifactServiceOptions {
  paths: RuntimePaths;
}

export function createArtifactServices(spec: KindSpec, options: ArtifactServiceOptions): ArtifactServices {
  const layout = createLayoutStore(join(options.paths.data, 'oci'));
  return { spec, builds: createBuildService({ spec, layout }) };
}
