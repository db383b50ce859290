import { readFile } from 'node:fs/promises';
import { isAbsolute, join, resolve as resolvePath } from 'node:path';
import { InvalidInputError } from '../../core/errors.js';
import type { RuntimeConfig } from '../workloads/schemas.js';
import { failureSummary, runCommand } from './command.js';
import { extrasSuffix, installOnce, installerEnv } from './install-cache.js';
import { parseProtocolImage, safeName, splitVersion } from './schemes.js';
import { findExecutable } from './toolchain.js';
import type { CommandRunner, PackageRuntime, ResolvedCommand } from './types.js';

export interface NpxRuntimeOptions {
  /** `<paths.cache>/npm`: one directory per package and version. */
  cacheDir: string;
  /** Environment of the installer (PATH to find npm, HOME for its cache, proxies). */
  env: Readonly<Record<string, string | undefined>>;
  /** Relative local directories (`npx://./server`) resolve against it. */
  cwd: string;
  /** The node binary that runs the installed package; the runtime's own by default. */
  nodePath?: string;
  /** npm's path or name on PATH. */
  npm?: string;
  /** An npm registry URL instead of the one npm is configured with. */
  registry?: string;
  run?: CommandRunner;
}

const NPM_NAME = /^(@[a-z0-9][a-z0-9._~-]*\/)?[a-z0-9][a-z0-9._~-]*$/i;

type NpxTarget =
  | { kind: 'local'; dir: string }
  | { kind: 'registry'; name: string; spec: string; dir: string; extras: string[] };

/**
 * `npx://<package>[@version]` installed once with npm into a cache directory, or `npx://<dir>` run in
 * place; either way the server is `node <bin file>`, never `npx`, so nothing is fetched at start.
 */
export function createNpxRuntime(options: NpxRuntimeOptions): PackageRuntime {
  const run = options.run ?? runCommand;
  const nodePath = options.nodePath ?? process.execPath;

  const target = (image: string, runtimeConfig: RuntimeConfig | undefined): NpxTarget => {
    const reference = parseProtocolImage(image)?.reference ?? '';
    if (reference.startsWith('/') || reference.startsWith('.')) {
      return { kind: 'local', dir: isAbsolute(reference) ? reference : resolvePath(options.cwd, reference) };
    }
    const { name, version } = splitVersion(reference);
    if (!NPM_NAME.test(name)) throw new InvalidInputError(`"${image}" does not name an npm package or a local directory`);
    const extras = runtimeConfig?.additional_packages ?? [];
    const entry = `${safeName(name)}@${safeName(version ?? 'latest')}${extrasSuffix(extras)}`;
    return { kind: 'registry', name, spec: version === undefined ? name : `${name}@${version}`, dir: join(options.cacheDir, entry), extras };
  };

  const install = async (spec: string, extras: readonly string[], dir: string, env: Record<string, string>): Promise<string> => {
    const npm = await findExecutable(options.npm ?? 'npm', env.PATH);
    if (npm === undefined) throw new InvalidInputError('npx:// images need npm, which comes with Node.js (https://nodejs.org/)');
    const registry = options.registry === undefined ? [] : ['--registry', options.registry];
    // The update check would fetch from the network on every install and print a notice; the flag
    // wins over any setting in the environment or the workload's runtime_env.
    const args = ['install', '--prefix', dir, '--no-audit', '--no-fund', '--no-save', '--no-update-notifier', ...registry, spec, ...extras];
    try {
      return await run(npm, args, { cwd: dir, env });
    } catch (error) {
      throw new InvalidInputError(`npm could not install ${spec}: ${failureSummary(error)}`);
    }
  };

  return {
    scheme: 'npx',
    prepare: async (image, runtimeConfig) => {
      const found = target(image, runtimeConfig);
      if (found.kind === 'local') {
        await binCommand(found.dir, nodePath);
        return '';
      }
      const env = installerEnv(options.env, runtimeConfig?.runtime_env);
      return installOnce(found.dir, (dir) => install(found.spec, found.extras, dir, env));
    },
    resolve: (image, runtimeConfig) => {
      const found = target(image, runtimeConfig);
      return binCommand(found.kind === 'local' ? found.dir : join(found.dir, 'node_modules', found.name), nodePath);
    },
  };
}

interface PackageJson {
  name?: unknown;
  bin?: unknown;
}

/** `node <file>` for the package's bin: the only one, or the one named like the unscoped package. */
async function binCommand(packageDir: string, nodePath: string): Promise<ResolvedCommand> {
  let manifest: PackageJson;
  try {
    manifest = JSON.parse(await readFile(join(packageDir, 'package.json'), 'utf8')) as PackageJson;
  } catch {
    throw new InvalidInputError(`${packageDir} has no readable package.json`);
  }
  const name = typeof manifest.name === 'string' ? manifest.name : '';
  const bins = binEntries(manifest.bin, name);
  const unscoped = name.replace(/^@[^/]+\//, '');
  const file = bins.length === 1 ? bins[0]?.[1] : bins.find(([binName]) => binName === unscoped)?.[1];
  if (file === undefined) {
    const listed = bins.length === 0 ? 'no "bin" entry' : `several "bin" entries (${bins.map(([binName]) => binName).join(', ')}) and none is named ${unscoped}`;
    throw new InvalidInputError(`package ${name || packageDir} has ${listed}, so there is no command to run`);
  }
  return { command: nodePath, args: [join(packageDir, file)] };
}

function binEntries(bin: unknown, name: string): [string, string][] {
  if (typeof bin === 'string') return [[name.replace(/^@[^/]+\//, ''), bin]];
  if (typeof bin !== 'object' || bin === null) return [];
  return Object.entries(bin).filter((entry): entry is [string, string] => typeof entry[1] === 'string');
}
