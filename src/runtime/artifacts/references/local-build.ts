import type { BuildService } from '../builds.js';
import { formatOciName, parseOciName } from './oci-name.js';
import type { ReferenceResolver } from './resolver.js';

/**
 * A tag of the local OCI layout, with `:latest` when none is given. A reference naming a registry
 * host is never taken here, even when a local build carries the same name: it means that registry.
 */
export function localBuildResolver(builds: BuildService): ReferenceResolver {
  return {
    resolve: async (reference, { scratch }) => {
      const name = parseOciName(reference);
      if (name === undefined || name.host !== '' || name.digest !== '') return undefined;
      const tag = formatOciName({ ...name, tag: name.tag === '' ? 'latest' : name.tag });
      const unpacked = await builds.unpack(tag, scratch);
      if (unpacked === undefined) return undefined;
      return { dir: unpacked.dir, reference: tag, digest: unpacked.digest, tag: tag.slice(tag.lastIndexOf(':') + 1), provenance: null, unsigned: true };
    },
  };
}
