import { describe, expect, it } from 'vitest';
import { applyMergePatch, mergePatchBetween } from './merge-patch.js';

// The examples of RFC 7396, appendix A
describe('JSON merge patch', () => {
  it.each([
    [{ a: 'b' }, { a: 'c' }, { a: 'c' }],
    [{ a: 'b' }, { b: 'c' }, { a: 'b', b: 'c' }],
    [{ a: 'b' }, { a: null }, {}],
    [{ a: 'b', b: 'c' }, { a: null }, { b: 'c' }],
    [{ a: ['b'] }, { a: 'c' }, { a: 'c' }],
    [{ a: 'c' }, { a: ['b'] }, { a: ['b'] }],
    [{ a: { b: 'c' } }, { a: { b: 'd', c: null } }, { a: { b: 'd' } }],
    [{ a: [{ b: 'c' }] }, { a: [1] }, { a: [1] }],
    [['a', 'b'], ['c', 'd'], ['c', 'd']],
    [{ a: 'b' }, ['c'], ['c']],
    [{ a: 'foo' }, null, null],
    [{ a: 'foo' }, 'bar', 'bar'],
    [{ e: null }, { a: 1 }, { e: null, a: 1 }],
    [[1, 2], { a: 'b', c: null }, { a: 'b' }],
    [{}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }],
  ])('%j patched with %j is %j', (target, patch, expected) => {
    expect(applyMergePatch(target, patch)).toEqual(expected);
  });
});

describe('the merge patch between two objects', () => {
  it.each([
    [{ description: 'a', gatewayRef: { name: 'g' } }, { gatewayRef: { name: 'g' } }, { description: null }],
    [{ mcpPolicy: { servers: ['a'] } }, { mcpPolicy: {} }, { mcpPolicy: { servers: null } }],
    [{ principalMatchers: [{ claims: { a: 'b' } }] }, { principalMatchers: [{ claims: { a: 'c' } }] }, { principalMatchers: [{ claims: { a: 'c' } }] }],
    [{ a: { b: 1 } }, { a: { b: 1 }, c: 2 }, { c: 2 }],
  ])('from %j to %j is %j, and applying it gives the second', (before, after, patch) => {
    expect(mergePatchBetween(before, after)).toEqual(patch);
    expect(applyMergePatch(before, patch)).toEqual(after);
  });
});
