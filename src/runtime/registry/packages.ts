import { ConflictError, NotFoundError } from '../../core/errors.js';
import { text, type Json } from './server-json.js';

export type PackageKind = 'skill' | 'plugin';

/** What the catalog-name resolver asks of the configured registry (clarification point 3 (d)). */
export interface CatalogPackages {
  /**
   * The record of a skill or plugin by `name` or `namespace/name`, at `version` or the latest;
   * undefined when no record has that name. Several namespaces sharing a bare name are a conflict.
   */
  findPackage: (kind: PackageKind, reference: string, version: string | undefined) => Promise<Json | undefined>;
}

/** The one latest record named exactly `name` or `namespace/name`; a bare name several namespaces share is ambiguous (409). */
export function matchPackage(records: Json[], kind: PackageKind, reference: string): Json | undefined {
  const slash = reference.lastIndexOf('/');
  const namespace = slash === -1 ? undefined : reference.slice(0, slash);
  const name = reference.slice(slash + 1);
  const found = records.filter((record) => text(record.name) === name && (namespace === undefined || text(record.namespace) === namespace));
  if (found.length > 1) {
    const names = found.map((record) => `${text(record.namespace)}/${name}`).join(', ');
    throw new ConflictError(`several ${kind}s are named ${name} in the registry (${names}); name one as namespace/name`);
  }
  return found[0];
}

export const versionMissing = (kind: PackageKind, record: Json, version: string): NotFoundError =>
  new NotFoundError(`the registry has no version ${version} of the ${kind} ${text(record.namespace)}/${text(record.name)} (its latest is ${text(record.version)})`);
