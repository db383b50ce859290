import { BadGatewayError, DomainError, InvalidInputError } from '../../../core/errors.js';
import type { CatalogPackages } from '../../registry/packages.js';
import { text, type Json } from '../../registry/server-json.js';
import { formatGitReference } from './git.js';
import { parseOciName } from './oci-name.js';
import type { ReferenceResolver } from './resolver.js';
import { isJsonObject } from '../../../core/json-object.js';

const CATALOG_NAME = /^([\w.-]+\/)?[\w.-]+$/;

/** The OCI reference of an `oci` package: its identifier, at the record's version when it names no tag or digest. */
function ociReference(pkg: Json, version: string): string {
  const identifier = text(pkg.identifier);
  const name = parseOciName(identifier);
  if (name === undefined || name.host === '') throw new BadGatewayError(`the registry's oci package "${identifier}" is not an OCI reference with a registry host`);
  return name.tag === '' && name.digest === '' ? `${identifier}:${version}` : identifier;
}

/** Form (a) of a `git` package: `url`, pinned by `commit` (else `ref`), in `subfolder`. */
function gitReference(pkg: Json): string {
  let url: URL;
  try {
    url = new URL(text(pkg.url));
  } catch {
    throw new BadGatewayError(`the registry's git package has no usable url ("${text(pkg.url)}")`);
  }
  const path = url.pathname.replace(/^\/+|\/+$/g, '');
  return formatGitReference({ host: url.host, path, ref: text(pkg.commit) || text(pkg.ref), subdir: text(pkg.subfolder).replace(/^\/+|\/+$/g, '') });
}

/**
 * Catalog names (clarification point 3 (d)): `name` or `namespace/name` looked up in the configured
 * registry; the record's first `oci` package, else its first `git` one, is fetched by the resolver
 * of that form. A name the registry does not know is left to the chain's 404.
 */
export function catalogNameResolver(options: { catalog: CatalogPackages; git: ReferenceResolver; oci: ReferenceResolver }): ReferenceResolver {
  return {
    resolve: async (reference, context) => {
      if (!CATALOG_NAME.test(reference)) return undefined;
      const kind = context.spec.kind === 'skills' ? 'skill' : 'plugin';
      let record: Json | undefined;
      try {
        record = await options.catalog.findPackage(kind, reference, context.version);
      } catch (error) {
        // the registry not answering is an upstream failure (sync calls it registry-unreachable), not the runtime's
        if (error instanceof DomainError && error.status >= 500) throw new BadGatewayError(`the registry could not be read to look up ${reference}: ${error.message}`);
        throw error;
      }
      if (record === undefined) return undefined;
      const packages = Array.isArray(record.packages) ? record.packages.filter(isJsonObject) : [];
      const oci = packages.find((pkg) => pkg.registryType === 'oci');
      const git = packages.find((pkg) => pkg.registryType === 'git');
      const version = text(record.version);
      if (oci !== undefined) return options.oci.resolve(ociReference(oci, version), { ...context, version });
      if (git !== undefined) return options.git.resolve(gitReference(git), context);
      throw new InvalidInputError(`the registry's ${kind} ${text(record.namespace)}/${text(record.name)} ${version} has no oci or git package to install from`);
    },
  };
}
