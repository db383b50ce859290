import { scimPatch, type ScimPatchOperation, type ScimResource } from 'scim-patch';
import { ScimError } from './errors.js';

/*
 * PATCH (RFC 7644 §3.5.2) as identity providers really send it: op names in any case (Entra's
 * "Replace"), booleans as "True"/"false" strings, path-less add/replace whose object keys are paths
 * (`name.givenName`, the enterprise URN), `id`/`meta` to be ignored, member removal the Okta way
 * (`members[value eq "…"]`) or the Entra way (`members` with a value list). The operations are made
 * canonical here and applied by scim-patch.
 */

const BOOLEAN_KEYS = new Set(['active', 'primary']);
const IGNORED = /^(id|meta)(\.|$)/i;

/** "True"/"false" (any case) as booleans wherever a boolean attribute is set. */
function booleans(value: unknown, key?: string): unknown {
  if (typeof value === 'string' && key !== undefined && BOOLEAN_KEYS.has(key.split('.').at(-1)?.toLowerCase() ?? '')) {
    const lower = value.toLowerCase();
    if (lower === 'true') return true;
    if (lower === 'false') return false;
  }
  if (Array.isArray(value)) return value.map((item) => booleans(item, key));
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(Object.entries(value).map(([name, item]) => [name, booleans(item, name)]));
}

/** The operations of a PatchOp body, canonical; anything that is not one is 400 invalidSyntax. */
export function canonicalOperations(body: unknown): ScimPatchOperation[] {
  const operations = typeof body === 'object' && body !== null ? (body as { Operations?: unknown; operations?: unknown }).Operations ?? (body as { operations?: unknown }).operations : undefined;
  if (!Array.isArray(operations) || operations.length === 0) throw new ScimError(400, 'Operations: required, a non-empty list of PATCH operations', 'invalidSyntax');
  const canonical: ScimPatchOperation[] = [];
  operations.forEach((operation: unknown, index) => {
    const { op, path, value } = (typeof operation === 'object' && operation !== null ? operation : {}) as { op?: unknown; path?: unknown; value?: unknown };
    const name = typeof op === 'string' ? op.toLowerCase() : '';
    if (name !== 'add' && name !== 'replace' && name !== 'remove') throw new ScimError(400, `Operations[${index}].op: must be add, replace or remove`, 'invalidSyntax');
    if (path !== undefined && typeof path !== 'string') throw new ScimError(400, `Operations[${index}].path: must be a string`, 'invalidPath');
    if (typeof path === 'string' && IGNORED.test(path)) return;
    if (name === 'remove') {
      if (path === undefined) throw new ScimError(400, `Operations[${index}].path: required for remove`, 'noTarget');
      // Entra removes members as `path: members` with a list of {value}: the same as one value filter each
      if (Array.isArray(value) && !path.includes('[') && value.every((entry) => typeof (entry as { value?: unknown } | null)?.value === 'string')) {
        for (const entry of value as { value: string }[]) canonical.push({ op: 'remove', path: `${path}[value eq ${JSON.stringify(entry.value)}]` });
        return;
      }
      canonical.push(value === undefined ? { op: 'remove', path } : { op: 'remove', path, value: booleans(value, path) });
      return;
    }
    if (path === undefined) {
      if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new ScimError(400, `Operations[${index}].value: an object is required when there is no path`, 'invalidValue');
      const kept = Object.fromEntries(Object.entries(value).filter(([key]) => !IGNORED.test(key) && key !== 'schemas'));
      if (Object.keys(kept).length > 0) canonical.push({ op: name, value: booleans(kept) });
      return;
    }
    canonical.push({ op: name, path, value: booleans(value, path) });
  });
  return canonical;
}

/** Applies the operations to a copy of the resource; a path that names nothing is 400 (invalidPath or noTarget). */
export function applyPatch<T extends Record<string, unknown>>(resource: T, operations: ScimPatchOperation[]): T {
  try {
    return scimPatch(structuredClone(resource) as unknown as ScimResource, operations, { mutateDocument: true, treatMissingAsAdd: true }) as unknown as T;
  } catch (error) {
    const detail = error instanceof Error ? error.message : 'the patch cannot be applied';
    const scimType = (error as { scimCode?: string }).scimCode === 'noTarget' ? 'noTarget' : 'invalidPath';
    throw new ScimError(400, detail, scimType);
  }
}
