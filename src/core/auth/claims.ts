/**
 * The claims rules, in one place. A resource's claims map keys to a string or a list of strings; a
 * caller's claims come from its token, where any value that is not a string or a list of strings
 * matches nothing.
 */
export type ClaimValue = string | string[];
export type ClaimMap = Record<string, ClaimValue>;

function callerValues(callerClaims: Record<string, unknown>, key: string): Set<string> {
  const value = callerClaims[key];
  if (typeof value === 'string') return new Set([value]);
  if (Array.isArray(value) && value.every((item) => typeof item === 'string')) return new Set(value);
  return new Set();
}

function valuesOf(value: ClaimValue): string[] {
  return typeof value === 'string' ? [value] : value;
}

/**
 * Visibility (reads, gates, deletes, role maps): for every key of the resource the caller holds at
 * least one of its values. A resource without claims is visible to nobody.
 */
export function isVisible(resource: ClaimMap, callerClaims: Record<string, unknown>): boolean {
  const keys = Object.keys(resource);
  if (keys.length === 0) return false;
  return keys.every((key) => {
    const held = callerValues(callerClaims, key);
    return valuesOf(resource[key] ?? []).some((value) => held.has(value));
  });
}

/**
 * Subset (writes that set claims): for every key of the incoming claims the caller holds every value.
 * Empty incoming claims are a subset of anything; callers decide whether they are allowed.
 */
export function isSubset(incoming: ClaimMap, callerClaims: Record<string, unknown>): boolean {
  return Object.keys(incoming).every((key) => {
    const held = callerValues(callerClaims, key);
    const wanted = valuesOf(incoming[key] ?? []);
    return wanted.length > 0 && wanted.every((value) => held.has(value));
  });
}

/** A role is a list of claim maps: granted when any one map matches by the visibility rule. */
export function hasRole(maps: readonly ClaimMap[] | undefined, callerClaims: Record<string, unknown>): boolean {
  return (maps ?? []).some((map) => isVisible(map, callerClaims));
}
