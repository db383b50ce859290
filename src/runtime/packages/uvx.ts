import { access } from 'node:fs/promises';
import { join } from 'node:path';
import { InvalidInputError } from '../../core/errors.js';
import type { RuntimeConfig } from '../workloads/schemas.js';
import { failureSummary, runCommand } from './command.js';
import { extrasSuffix, installOnce, installerEnv } from './install-cache.js';
import { parseProtocolImage, safeName, splitVersion } from './schemes.js';
import { findExecutable } from './toolchain.js';
import type { CommandRunner, PackageRuntime } from './types.js';

export interface UvxRuntimeOptions {
  /** `<paths.cache>/python`: one virtual environment per package and version. */
  cacheDir: string;
  env: Readonly<Record<string, string | undefined>>;
  run?: CommandRunner;
}

const PYTHON_NAME = /^[A-Za-z0-9]([A-Za-z0-9._-]*[A-Za-z0-9])?(\[[A-Za-z0-9._, -]+\])?$/;

/**
 * `uvx://<package>[@version]`: a virtual environment per package in the cache, made with `uv` when it
 * is on PATH and with python3's venv and pip otherwise; the server is the venv's console script named
 * like the package, as `uvx <package>` would run.
 */
export function createUvxRuntime(options: UvxRuntimeOptions): PackageRuntime {
  const run = options.run ?? runCommand;

  const target = (image: string, runtimeConfig: RuntimeConfig | undefined) => {
    const { name, version } = splitVersion(parseProtocolImage(image)?.reference ?? '');
    if (!PYTHON_NAME.test(name)) throw new InvalidInputError(`"${image}" does not name a Python package`);
    const extras = runtimeConfig?.additional_packages ?? [];
    const entry = `${safeName(name)}@${safeName(version ?? 'latest')}${extrasSuffix(extras)}`;
    return {
      script: name.replace(/\[.*$/, ''),
      spec: version === undefined ? name : `${name}==${version}`,
      venv: join(options.cacheDir, entry),
      extras,
    };
  };

  return {
    scheme: 'uvx',
    prepare: async (image, runtimeConfig) => {
      const { spec, venv, extras, script } = target(image, runtimeConfig);
      const env = installerEnv(options.env, runtimeConfig?.runtime_env);
      const uv = await findExecutable('uv', env.PATH);
      const python = uv === undefined ? await findExecutable('python3', env.PATH) : undefined;
      if (uv === undefined && python === undefined) {
        throw new InvalidInputError('uvx:// images need uv (https://docs.astral.sh/uv/) or python3 with the venv module; install one of them');
      }
      return installOnce(venv, async (dir) => {
        let output = '';
        try {
          if (uv !== undefined) {
            output += await run(uv, ['venv', '--quiet', dir], { env });
            output += await run(uv, ['pip', 'install', '--quiet', '--python', join(dir, 'bin', 'python'), spec, ...extras], { env });
          } else if (python !== undefined) {
            output += await run(python, ['-m', 'venv', dir], { env });
            output += await run(join(dir, 'bin', 'python'), ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', spec, ...extras], { env });
          }
        } catch (error) {
          throw new InvalidInputError(`could not install ${spec} with ${uv === undefined ? 'python3 venv and pip' : 'uv'}: ${failureSummary(error)}`);
        }
        try {
          await access(join(dir, 'bin', script));
        } catch {
          throw new InvalidInputError(`${spec} installed but has no "${script}" command to run`);
        }
        return output;
      });
    },
    resolve: (image, runtimeConfig) => {
      const { venv, script } = target(image, runtimeConfig);
      return Promise.resolve({ command: join(venv, 'bin', script), args: [], env: { VIRTUAL_ENV: venv } });
    },
  };
}
