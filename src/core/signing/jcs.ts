import canonicalize from 'canonicalize';

/**
 * Whether JSON.stringify writes exactly the JCS bytes of `value`: only plain objects whose keys already come in
 * JCS order (UTF-16 code units, what `sort()` compares), arrays, well-formed strings (a lone surrogate has no
 * JCS form), finite numbers, booleans and null. RFC 8785 serializes strings and numbers as JSON.stringify does,
 * so the only difference left is key order.
 */
function inCanonicalOrder(value: unknown): boolean {
  if (value === null || typeof value === 'boolean') return true;
  if (typeof value === 'string') return value.isWellFormed();
  if (typeof value === 'number') return Number.isFinite(value);
  if (typeof value !== 'object') return false;
  if (Array.isArray(value)) {
    for (const item of value) if (!inCanonicalOrder(item)) return false;
    return true;
  }
  const prototype: unknown = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) return false;
  let previous: string | undefined;
  for (const key of Object.keys(value)) {
    if ((previous !== undefined && !(previous < key)) || !key.isWellFormed()) return false;
    const item = (value as Record<string, unknown>)[key];
    // an undefined member is left out by both serializations
    if (item !== undefined && !inCanonicalOrder(item)) return false;
    previous = key;
  }
  return true;
}

/**
 * RFC 8785 (JCS) canonical JSON: the bytes that are hashed and signed. A value built with its keys in order
 * (the tool-usage records are) is written by JSON.stringify, several times faster than key by key.
 */
export function jcs(value: unknown): string {
  if (inCanonicalOrder(value)) return JSON.stringify(value);
  const text = canonicalize(value);
  if (text === undefined) throw new TypeError('the value has no JSON form');
  return text;
}
