import { createHash } from 'node:crypto';
import { canonicalJson } from '../../core/canonical-json.js';
import type { Catalog, Entry, Version, VersionState } from './schemas.js';
import type { VersionRow } from './store.js';

const hash = (text: string) => `"${createHash('sha256').update(text).digest('hex').slice(0, 32)}"`;

/** The catalog's ETag: it changes with each version taking effect. */
export const catalogEtag = (versionId: string) => hash(`pricing-version:${versionId}`);

/** An entry's ETag: the hash of its canonical JSON, so it changes only when the entry does. */
export const entryEtag = (entry: Entry) => hash(canonicalJson(entry));

export function presentCatalog(row: VersionRow): Catalog {
  return { id: row.id, effective_from: row.effective_from.toISOString(), provider_aliases: row.provider_aliases, spec: row.spec };
}

export function stateOf(row: VersionRow, inEffectId: string | undefined, now: Date): VersionState {
  if (row.effective_from.getTime() > now.getTime()) return 'staged';
  return row.id === inEffectId ? 'in_effect' : 'superseded';
}

export function presentVersion(row: VersionRow, state: VersionState): Version {
  return { ...presentCatalog(row), source: row.source, state };
}

/** `If-Match` against the current ETags: `*` matches any current version, else any listed tag. */
export function ifMatches(header: string, current: readonly string[]): boolean {
  return header.split(',').some((tag) => {
    const value = tag.trim();
    return value === '*' || current.includes(value);
  });
}
