import { isJsonObject } from '../../core/json-object.js';

/** JSON merge patch (RFC 7396 §2): objects merge, `null` removes a member, anything else replaces. */
export function applyMergePatch(target: unknown, patch: unknown): unknown {
  if (!isJsonObject(patch)) return patch;
  const result = new Map(Object.entries(isJsonObject(target) ? target : {}));
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) result.delete(key);
    else result.set(key, applyMergePatch(result.get(key), value));
  }
  return Object.fromEntries(result);
}

/** Deep equality of JSON values (member order does not count). */
export function jsonEqual(left: unknown, right: unknown): boolean {
  if (left === right) return true;
  if (Array.isArray(left)) return Array.isArray(right) && left.length === right.length && left.every((item, index) => jsonEqual(item, right[index]));
  if (isJsonObject(left) && isJsonObject(right)) {
    const keys = Object.keys(left);
    return keys.length === Object.keys(right).length && keys.every((key) => Object.hasOwn(right, key) && jsonEqual(left[key], right[key]));
  }
  return false;
}

/** The merge patch that turns `before` into `after` (RFC 7396): changed members, and `null` for removed ones. */
export function mergePatchBetween(before: Record<string, unknown>, after: Record<string, unknown>): Record<string, unknown> {
  const patch: Record<string, unknown> = {};
  for (const key of Object.keys(before)) if (!Object.hasOwn(after, key)) patch[key] = null;
  for (const [key, value] of Object.entries(after)) {
    const was = before[key];
    if (isJsonObject(was) && isJsonObject(value)) {
      const inner = mergePatchBetween(was, value);
      if (Object.keys(inner).length > 0) patch[key] = inner;
    } else if (!jsonEqual(was, value)) patch[key] = value;
  }
  return patch;
}
