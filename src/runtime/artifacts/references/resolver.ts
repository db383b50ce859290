import { InvalidInputError, NotFoundError } from '../../../core/errors.js';
import type { KindSpec } from '../kinds.js';
import type { StoredSignature } from '../signature-format.js';
import { parseOciName } from './oci-name.js';

/** Who signed an artifact, as the details envelope shows it. */
export interface Provenance {
  cert_issuer: string;
  provisional: boolean;
  public_key: string;
  repository_ref: string;
  repository_uri: string;
  runner_environment: string;
  signer_identity: string;
  sigstore_url: string;
}

/** An artifact fetched into a folder of its own, with what pins it. */
export interface Fetched {
  dir: string;
  /** The resolved reference (`git://…@<commit>#sub`, a build tag, `host/repo:tag`). */
  reference: string;
  /** The pin: a manifest digest or a commit. */
  digest: string;
  /** The OCI tag alone (`1.0.0`), empty for other references. */
  tag: string;
  provenance: Provenance | null;
  unsigned: boolean;
  /** The verified signature, kept so sync can verify it again offline. */
  signature?: StoredSignature | undefined;
}

export interface ResolveContext {
  spec: KindSpec;
  /** A folder the resolver may fill; the caller removes it when done. */
  scratch: string;
  /** The version asked for, which picks among a name's versions (a local build's tag, a catalog entry). */
  version?: string | undefined;
  /** A plugin marketplace the name is looked up in instead (point 3(e)). */
  marketplace?: string | undefined;
  /**
   * A pin (a lock entry's) that was first looked up by `name` in `marketplace`: a `strict: false` entry's
   * plugin.json lives in the marketplace, not in the pinned tree.
   */
  pinnedFrom?: { marketplace: string; name: string } | undefined;
}

/**
 * One way of turning a reference into files. Resolvers are tried in the order of clarification
 * point 3 (git, local build, OCI registry, catalog name, marketplace); one that does not take the
 * reference answers undefined and the next is asked.
 */
export interface ReferenceResolver {
  resolve: (reference: string, context: ResolveContext) => Promise<Fetched | undefined>;
}

export interface ChainResolver {
  resolve: (reference: string, context: ResolveContext) => Promise<Fetched>;
}

/** Tries each resolver in turn; a reference none takes is a 404 (a name) or a 400 (a registry reference that names no tag). */
export function chainResolvers(resolvers: readonly ReferenceResolver[]): ChainResolver {
  return {
    resolve: async (reference, context) => {
      if (reference.trim() === '') throw new InvalidInputError('the reference is empty: give a git:// reference, an OCI reference or a local build tag');
      for (const resolver of resolvers) {
        const fetched = await resolver.resolve(reference, context);
        if (fetched !== undefined) return fetched;
      }
      const name = parseOciName(reference);
      if (name !== undefined && name.host !== '') throw new InvalidInputError(`${reference} names the registry ${name.host} but no tag or digest; add one, as in ${reference}:1.0.0`);
      throw new NotFoundError(`no local ${context.spec.singular} build is tagged ${reference}, and it is not a git:// reference`);
    },
  };
}
