import canonicalize from 'canonicalize';
import { describe, expect, it } from 'vitest';
import { jcs } from './jcs.js';

describe('JCS canonical JSON', () => {
  const values: [string, unknown][] = [
    ['keys in order', { a: 1, b: [true, null, 'x'], c: { d: 'é', e: -0 } }],
    ['keys out of order', { b: 1, a: { z: 1, y: 2 } }],
    ['out of order only deep down', { a: [{ n: 1, m: 2 }] }],
    ['integer-like keys, which objects list first', { 10: 'a', 9: 'b', a: 'c' }],
    ['keys beyond the BMP and upper case', { '\u{1F600}': 1, '\uFB33': 2, B: 3, a: 4 }],
    ['undefined members and array items', { a: undefined, b: [undefined, 2] }],
    ['numbers JSON writes in exponent form', { a: 1e21, b: 1e-7, c: 0.1 + 0.2 }],
    ['a Date, serialized by its toJSON', { at: new Date(0) }],
    ['strings that need escaping', { a: '"\\\n\u0001\u2028\u{1F600}' }],
    ['a tool-usage record, built in order', { chain_id: 'default', prev_hash: '0'.repeat(64), sequence: 1, usage: { billable: true, groups: [{ id: 'g', name: 'n' }], user_email: null } }],
  ];

  it.each(values)('writes the RFC 8785 bytes: %s', (_name, value) => {
    expect(jcs(value)).toBe(canonicalize(value));
  });

  it('refuses what has no JSON form, and numbers JSON cannot hold', () => {
    expect(() => jcs(undefined)).toThrow(TypeError);
    expect(() => jcs({ a: Number.NaN })).toThrow();
    expect(() => jcs([Number.POSITIVE_INFINITY])).toThrow();
    expect(() => jcs({ a: '\uD800' })).toThrow();
    expect(() => jcs({ '\uDC00': 1 })).toThrow();
  });
});
