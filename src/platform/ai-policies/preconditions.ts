/**
 * `If-Match` against a resource version (PLATFORM-API Part 5 rule 1): `*` matches any version, a list
 * matches when one of its strong ETags does; a weak or malformed entry never matches.
 */
export function ifMatchHolds(header: string, resourceVersion: string): boolean {
  return header.split(',').some((entry) => {
    const tag = entry.trim();
    return tag === '*' || tag === `"${resourceVersion}"`;
  });
}

export const etagOf = (resourceVersion: string) => `"${resourceVersion}"`;
