import { parse, type Filter } from 'scim2-parse-filter';
import { SCHEMAS } from './discovery.js';
import { ScimError } from './errors.js';

/*
 * SCIM filters (RFC 7644 §3.4.2.2): parsed by scim2-parse-filter, then checked against the attributes
 * this provider filters on and evaluated here, because the comparison rules are the schema's (names
 * case-insensitive; `id` and `externalId` case-exact, other strings not; dates compared as instants).
 */

export type ResourceKind = 'User' | 'Group';

const FILTERABLE: Record<ResourceKind, RegExp> = {
  User: /^(id|username|externalid|displayname|active|emails(\.(value|type|primary|display))?|name(\.(formatted|familyname|givenname|middlename|honorificprefix|honorificsuffix))?|meta\.(created|lastmodified|resourcetype|location|version))$/,
  Group: /^(id|displayname|externalid|members(\.(value|type|display))?|meta\.(created|lastmodified|resourcetype|location|version))$/,
};
const CASE_EXACT = new Set(['id', 'externalid']);
const DATES = new Set(['meta.created', 'meta.lastmodified']);

/** An attribute path without its core-schema URN, in lower case. */
function normalisePath(path: string, kind: ResourceKind): string {
  const urn = `${kind === 'User' ? SCHEMAS.user : SCHEMAS.group}:`.toLowerCase();
  const lower = path.toLowerCase();
  return lower.startsWith(urn) ? lower.slice(urn.length) : lower;
}

function invalid(detail: string): ScimError {
  return new ScimError(400, detail, 'invalidFilter');
}

function check(filter: Filter, kind: ResourceKind, prefix = ''): void {
  switch (filter.op) {
    case 'and':
    case 'or':
      for (const inner of (filter as { filters: Filter[] }).filters) check(inner, kind, prefix);
      return;
    case 'not':
      check((filter as { filter: Filter }).filter, kind, prefix);
      return;
    case '[]': {
      const { attrPath, valFilter } = filter as { attrPath: string; valFilter: Filter };
      check(valFilter, kind, `${normalisePath(attrPath, kind)}.`);
      return;
    }
    default: {
      const path = prefix + normalisePath((filter as { attrPath: string }).attrPath, kind);
      if (!FILTERABLE[kind].test(path)) throw invalid(`filter: ${kind}s cannot be filtered on "${(filter as { attrPath: string }).attrPath}"`);
    }
  }
}

/** Parses and checks a filter; a syntax error or an attribute this provider does not filter on is 400 invalidFilter. */
export function parseFilter(text: string, kind: ResourceKind): Filter {
  let filter: Filter;
  try {
    filter = parse(text);
  } catch {
    throw invalid(`filter: "${text}" is not a SCIM filter (RFC 7644 §3.4.2.2), for example userName eq "bjensen"`);
  }
  check(filter, kind);
  return filter;
}

/** The values at a (lower-case, dotted) path; multi-valued attributes are flattened. */
function valuesAt(resource: unknown, path: string[]): unknown[] {
  if (path.length === 0) return Array.isArray(resource) ? resource : [resource];
  if (Array.isArray(resource)) return resource.flatMap((item) => valuesAt(item, path));
  if (typeof resource !== 'object' || resource === null) return [];
  const [head, ...rest] = path;
  const key = Object.keys(resource).find((candidate) => candidate.toLowerCase() === head);
  return key === undefined ? [] : valuesAt((resource as Record<string, unknown>)[key], rest);
}

type Comparator = (value: unknown, target: string | number | boolean | null, caseExact: boolean, date: boolean) => boolean;

const asText = (value: unknown, caseExact: boolean) => (caseExact ? String(value) : String(value).toLowerCase());
const ordered = (compare: (order: number) => boolean): Comparator => (value, target, caseExact, date) => {
  if (target === null || typeof target === 'boolean' || typeof value === 'boolean') return false;
  if (date) {
    const left = Date.parse(String(value));
    const right = Date.parse(String(target));
    return !Number.isNaN(left) && !Number.isNaN(right) && compare(left - right);
  }
  if (typeof value === 'number' && typeof target === 'number') return compare(value - target);
  const left = asText(value, caseExact);
  const right = asText(target, caseExact);
  return compare(left < right ? -1 : left > right ? 1 : 0);
};

const equal: Comparator = (value, target, caseExact, date) => {
  if (target === null) return value === null || value === undefined;
  if (typeof target === 'boolean' || typeof value === 'boolean') return String(value).toLowerCase() === String(target).toLowerCase();
  if (date) return Date.parse(String(value)) === Date.parse(String(target));
  return asText(value, caseExact) === asText(target, caseExact);
};

const textual = (test: (left: string, right: string) => boolean): Comparator => (value, target, caseExact) =>
  typeof value !== 'object' && target !== null && typeof target !== 'boolean' && test(asText(value, caseExact), asText(target, caseExact));

const COMPARATORS: Record<string, Comparator> = {
  eq: equal,
  ne: (...args) => !equal(...args),
  co: textual((left, right) => left.includes(right)),
  sw: textual((left, right) => left.startsWith(right)),
  ew: textual((left, right) => left.endsWith(right)),
  gt: ordered((order) => order > 0),
  ge: ordered((order) => order >= 0),
  lt: ordered((order) => order < 0),
  le: ordered((order) => order <= 0),
};

const present = (value: unknown) => value !== null && value !== undefined && value !== '' && !(Array.isArray(value) && value.length === 0);

/** Whether `resource` (as the client reads it) matches the filter. */
export function matchesFilter(filter: Filter, resource: unknown, kind: ResourceKind, prefix = ''): boolean {
  switch (filter.op) {
    case 'and':
      return (filter as { filters: Filter[] }).filters.every((inner) => matchesFilter(inner, resource, kind, prefix));
    case 'or':
      return (filter as { filters: Filter[] }).filters.some((inner) => matchesFilter(inner, resource, kind, prefix));
    case 'not':
      return !matchesFilter((filter as { filter: Filter }).filter, resource, kind, prefix);
    case '[]': {
      const { attrPath, valFilter } = filter as { attrPath: string; valFilter: Filter };
      const path = normalisePath(attrPath, kind);
      return valuesAt(resource, path.split('.')).some((item) => matchesFilter(valFilter, item, kind, `${prefix}${path}.`));
    }
    case 'pr': {
      const path = normalisePath((filter as { attrPath: string }).attrPath, kind);
      return valuesAt(resource, path.split('.')).some(present);
    }
    default: {
      const { attrPath, compValue } = filter as { attrPath: string; compValue: string | number | boolean | null };
      const path = normalisePath(attrPath, kind);
      const full = prefix + path;
      const comparator = COMPARATORS[filter.op];
      if (!comparator) throw invalid(`filter: unknown operator "${filter.op}"`);
      const values = valuesAt(resource, path.split('.'));
      if (filter.op === 'ne') return values.every((value) => comparator(value, compValue, CASE_EXACT.has(full), DATES.has(full)));
      return values.some((value) => comparator(value, compValue, CASE_EXACT.has(full), DATES.has(full)));
    }
  }
}

/** A filter the database can answer alone: one `eq` on an indexed attribute (what IdPs send before a create). */
export function simpleEquality(filter: Filter, kind: ResourceKind): { attribute: 'id' | 'userName' | 'externalId' | 'displayName'; value: string } | undefined {
  if (filter.op !== 'eq') return undefined;
  const { attrPath, compValue } = filter as { attrPath: string; compValue: unknown };
  if (typeof compValue !== 'string') return undefined;
  const path = normalisePath(attrPath, kind);
  const indexed: Record<string, 'id' | 'userName' | 'externalId' | 'displayName'> =
    kind === 'User' ? { id: 'id', username: 'userName', externalid: 'externalId' } : { id: 'id', displayname: 'displayName', externalid: 'externalId' };
  const attribute = indexed[path];
  return attribute === undefined ? undefined : { attribute, value: compValue };
}
