import { join } from 'node:path';

/**
 * The files `docker login` and `podman login` keep registry credentials in, in the order Podman reads
 * them (containers-auth.json(5)): `REGISTRY_AUTH_FILE`, then `auth.json` under `XDG_RUNTIME_DIR` and
 * the configuration folder, then Docker's `config.json` (`DOCKER_CONFIG`, else `~/.docker`).
 */
export function registryAuthFiles(env: Readonly<Record<string, string | undefined>>, home: string): string[] {
  const configHome = env.XDG_CONFIG_HOME !== undefined && env.XDG_CONFIG_HOME !== '' ? env.XDG_CONFIG_HOME : join(home, '.config');
  return [
    ...(env.REGISTRY_AUTH_FILE !== undefined && env.REGISTRY_AUTH_FILE !== '' ? [env.REGISTRY_AUTH_FILE] : []),
    ...(env.XDG_RUNTIME_DIR !== undefined && env.XDG_RUNTIME_DIR !== '' ? [join(env.XDG_RUNTIME_DIR, 'containers', 'auth.json')] : []),
    join(configHome, 'containers', 'auth.json'),
    join(env.DOCKER_CONFIG !== undefined && env.DOCKER_CONFIG !== '' ? env.DOCKER_CONFIG : join(home, '.docker'), 'config.json'),
  ];
}
