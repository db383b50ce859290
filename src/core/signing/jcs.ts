import canonicalize from 'canonicalize';

/** RFC 8785 (JCS) canonical JSON: the bytes that are hashed and signed. */
export function jcs(value: unknown): string {
  const text = canonicalize(value);
  if (text === undefined) throw new TypeError('the value has no JSON form');
  return text;
}
