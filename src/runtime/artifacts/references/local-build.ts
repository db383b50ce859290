import type { BuildService } from '../builds.js';
import { formatOciName, parseOciName } from './oci-name.js';
import type { ReferenceResolver } from './resolver.js';

/**
 * A tag of the local OCI layout; a name without one takes the version asked for, else `latest`. A reference naming a registry
 * host is never taken here, even when a local build carries the same name: it means that registry.
 */
export function localBuildResolver(builds: BuildService): ReferenceResolver {
  return {
    resolve: async (reference, { scratch, version }) => {
      const name = parseOciName(reference);
      if (name === undefined || name.host !== '' || name.digest !== '') return undefined;
      const tag = formatOciName({ ...name, tag: name.tag !== '' ? name.tag : (version ?? 'latest') });
      const unpacked = await builds.unpack(tag, scratch);
      if (unpacked === undefined) return undefined;
      return { dir: unpacked.dir, reference: tag, digest: unpacked.digest, tag: tag.slice(tag.lastIndexOf(':') + 1), provenance: null, unsigned: true };
    },
  };
}
