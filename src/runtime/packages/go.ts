import { access } from 'node:fs/promises';
import { join } from 'node:path';
import { InvalidInputError } from '../../core/errors.js';
import { failureSummary, runCommand } from './command.js';
import { installOnce, installerEnv } from './install-cache.js';
import { parseProtocolImage, safeName, splitVersion } from './schemes.js';
import { findExecutable } from './toolchain.js';
import type { CommandRunner, PackageRuntime } from './types.js';

export interface GoRuntimeOptions {
  /** `<paths.cache>/go`: one GOBIN per module and version. */
  cacheDir: string;
  env: Readonly<Record<string, string | undefined>>;
  run?: CommandRunner;
}

const MODULE = /^[a-z0-9][a-z0-9.-]*(\.[a-z0-9-]+)+(\/[A-Za-z0-9._~+-]+)+$/;

/** `example.com/x/cmd/server/v2` installs as `server`: a major-version suffix is not the binary name. */
export function goBinaryName(module: string): string {
  const parts = module.split('/');
  const last = parts.at(-1) ?? module;
  return /^v\d+$/.test(last) && parts.length > 1 ? (parts.at(-2) ?? last) : last;
}

/** `go://<module>[@version]`: `go install` with GOBIN in the cache, then the binary runs directly. */
export function createGoRuntime(options: GoRuntimeOptions): PackageRuntime {
  const run = options.run ?? runCommand;

  const target = (image: string) => {
    const { name, version } = splitVersion(parseProtocolImage(image)?.reference ?? '');
    if (!MODULE.test(name)) throw new InvalidInputError(`"${image}" does not name a Go module path such as github.com/owner/repo/cmd/server`);
    return { module: name, spec: `${name}@${version ?? 'latest'}`, bin: join(options.cacheDir, `${safeName(name)}@${safeName(version ?? 'latest')}`, 'bin') };
  };

  return {
    scheme: 'go',
    prepare: async (image, runtimeConfig) => {
      if ((runtimeConfig?.additional_packages ?? []).length > 0) {
        throw new InvalidInputError('runtime_config.additional_packages does not apply to go:// images: a Go binary carries its dependencies');
      }
      const { module, spec, bin } = target(image);
      const env = installerEnv(options.env, runtimeConfig?.runtime_env);
      const go = await findExecutable('go', env.PATH);
      if (go === undefined) throw new InvalidInputError('go:// images need a Go toolchain; install Go (https://go.dev/dl/)');
      return installOnce(join(bin, '..'), async () => {
        let output: string;
        try {
          output = await run(go, ['install', spec], { env: { ...env, GOBIN: bin } });
        } catch (error) {
          throw new InvalidInputError(`go install ${spec} failed: ${failureSummary(error)}`);
        }
        try {
          await access(join(bin, goBinaryName(module)));
        } catch {
          throw new InvalidInputError(`go install ${spec} produced no "${goBinaryName(module)}" binary`);
        }
        return output;
      });
    },
    resolve: (image) => {
      const { module, bin } = target(image);
      return Promise.resolve({ command: join(bin, goBinaryName(module)), args: [] });
    },
  };
}
