import { InvalidInputError } from '../../core/errors.js';

/** Where an engine may listen, in the order they are tried. */
export interface EngineCandidate {
  socketPath: string;
  /** How the socket was found, for messages: `DOCKER_HOST`, `Docker`, `Podman`. */
  source: string;
}

export const START_AN_ENGINE = 'start Docker or Podman (podman system service) or set DOCKER_HOST to unix:///path/to/engine.sock';

/**
 * DOCKER_HOST when set (only unix://: the runtime never sends secrets in environment variables over
 * an unencrypted TCP connection), else Docker's default socket, else Podman's Docker-compatible
 * sockets (rootless first, then the system one).
 */
export function engineCandidates(env: Readonly<Record<string, string | undefined>>): EngineCandidate[] {
  const dockerHost = env.DOCKER_HOST?.trim() ?? '';
  if (dockerHost !== '') {
    if (!dockerHost.startsWith('unix://')) {
      throw new InvalidInputError(
        `DOCKER_HOST is ${dockerHost.replace(/\/\/[^@/]*@/, '//')}: only unix:// sockets are supported; point it at the engine's socket (unix:///var/run/docker.sock, or Podman's $XDG_RUNTIME_DIR/podman/podman.sock)`,
      );
    }
    const socketPath = dockerHost.slice('unix://'.length);
    if (!socketPath.startsWith('/')) throw new InvalidInputError(`DOCKER_HOST ${dockerHost} does not name an absolute socket path`);
    return [{ socketPath, source: 'DOCKER_HOST' }];
  }
  const runtimeDir = env.XDG_RUNTIME_DIR ?? '';
  return [
    { socketPath: '/var/run/docker.sock', source: 'Docker' },
    ...(runtimeDir.startsWith('/') ? [{ socketPath: `${runtimeDir}/podman/podman.sock`, source: 'Podman' }] : []),
    { socketPath: '/run/podman/podman.sock', source: 'Podman' },
  ];
}
