import { InvalidInputError } from '../../core/errors.js';
import type { PackageRuntime } from './types.js';

const NO_ENGINE = 'OCI images need a container engine (Docker or Podman API); none is configured on this runtime';

/**
 * The place for a Docker-API engine: until one is configured, every OCI reference is refused with a
 * reason a person can act on (use npx://, uvx://, go:// or a remote url instead).
 */
export function createUnavailableOciRuntime(): PackageRuntime {
  return {
    scheme: 'oci',
    prepare: () => Promise.reject(new InvalidInputError(NO_ENGINE)),
    resolve: () => Promise.reject(new InvalidInputError(NO_ENGINE)),
  };
}
