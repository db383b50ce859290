import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { createContainerRuntime } from '../containers/runtime.js';
import { createGoRuntime } from './go.js';
import { createNpxRuntime } from './npx.js';
import { parseProtocolImage } from './schemes.js';
import type { CommandRunner, PackageRuntime, PackageRuntimes } from './types.js';
import { createUvxRuntime } from './uvx.js';

export interface PackageRuntimesOptions {
  /** `paths.cache`. */
  cacheDir: string;
  /** Environment of the installers (PATH is where toolchains are looked for). */
  env: Readonly<Record<string, string | undefined>>;
  /** Relative `npx://./dir` paths resolve against it. */
  cwd: string;
  npm?: { path?: string; registry?: string };
  nodePath?: string;
  run?: CommandRunner;
  /** What runs OCI references: a Docker-API engine found from `env` by default. */
  oci?: PackageRuntime;
}

export function createPackageRuntimes(options: PackageRuntimesOptions): PackageRuntimes {
  const byScheme = {
    npx: createNpxRuntime({
      cacheDir: join(options.cacheDir, 'npm'),
      env: options.env,
      cwd: options.cwd,
      ...(options.nodePath !== undefined && { nodePath: options.nodePath }),
      ...(options.npm?.path !== undefined && { npm: options.npm.path }),
      ...(options.npm?.registry !== undefined && { registry: options.npm.registry }),
      ...(options.run !== undefined && { run: options.run }),
    }),
    uvx: createUvxRuntime({ cacheDir: join(options.cacheDir, 'python'), env: options.env, ...(options.run !== undefined && { run: options.run }) }),
    go: createGoRuntime({ cacheDir: join(options.cacheDir, 'go'), env: options.env, ...(options.run !== undefined && { run: options.run }) }),
  };
  const oci = options.oci ?? createContainerRuntime({ env: options.env, runtimeId: runtimeIdOf(options.cacheDir) });
  const forImage = (image: string): PackageRuntime => {
    const parsed = parseProtocolImage(image);
    return parsed === undefined ? oci : byScheme[parsed.scheme];
  };
  return { forImage, release: (image, workload) => forImage(image).release?.(workload) ?? Promise.resolve() };
}

/** A short mark of one runtime's files, so two runtimes sharing an engine tell their containers apart. */
export const runtimeIdOf = (dir: string): string => createHash('sha256').update(dir).digest('hex').slice(0, 10);

export type { CommandRunner, PackageRuntime, PackageRuntimes, ResolvedCommand } from './types.js';
