import type { FilterConfig } from '../tables.js';
import type { IngestRecord } from '../sources/providers/records.js';

/** A name glob: `*` matches any run of characters, `/` included; everything else is literal. */
export function globToRegExp(glob: string): RegExp {
  const pattern = glob
    .split('*')
    .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  return new RegExp(`^${pattern}$`);
}

/** Builds the predicate of a source filter: exclude beats include, an empty include list keeps all. */
export function createEntryFilter(filter: FilterConfig): (record: Pick<IngestRecord, 'name' | 'tags'>) => boolean {
  const include = filter.names.include.map(globToRegExp);
  const exclude = filter.names.exclude.map(globToRegExp);
  const tagInclude = new Set(filter.tags.include);
  const tagExclude = new Set(filter.tags.exclude);
  return ({ name, tags }) => {
    if (exclude.some((re) => re.test(name))) return false;
    if (include.length > 0 && !include.some((re) => re.test(name))) return false;
    if (tags.some((tag) => tagExclude.has(tag))) return false;
    if (tagInclude.size > 0 && !tags.some((tag) => tagInclude.has(tag))) return false;
    return true;
  };
}
