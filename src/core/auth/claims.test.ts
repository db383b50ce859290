import { describe, expect, it } from 'vitest';
import { hasRole, isSubset, isVisible, type ClaimMap } from './claims.js';

describe('visibility rule', () => {
  it('holds the four examples of the specification', () => {
    expect(isVisible({ org: 'a' }, { org: 'a', team: 't' })).toBe(true);
    expect(isVisible({ org: 'a', team: 't' }, { org: 'a' })).toBe(false);
    expect(isVisible({}, { org: 'a' })).toBe(false);
    expect(isVisible({ org: 'a' }, { org: 'b' })).toBe(false);
  });

  it('lets the caller hold any one value of a list, on either side', () => {
    expect(isVisible({ team: ['platform', 'data'] }, { team: 'data' })).toBe(true);
    expect(isVisible({ team: ['platform', 'data'] }, { team: ['web', 'platform'] })).toBe(true);
    expect(isVisible({ team: 'data' }, { team: ['web', 'data'] })).toBe(true);
    expect(isVisible({ team: ['platform', 'data'] }, { team: ['web'] })).toBe(false);
  });

  it('requires every key', () => {
    expect(isVisible({ org: 'a', team: ['x', 'y'] }, { org: 'a', team: 'y' })).toBe(true);
    expect(isVisible({ org: 'a', team: ['x', 'y'] }, { org: 'b', team: 'y' })).toBe(false);
  });

  it('treats token values that are not strings as matching nothing', () => {
    expect(isVisible({ level: '1' }, { level: 1 })).toBe(false);
    expect(isVisible({ org: 'a' }, { org: ['a', 2] })).toBe(false);
    expect(isVisible({ org: 'a' }, { org: { a: true } })).toBe(false);
  });
});

describe('subset rule', () => {
  it('needs every incoming value held by the caller', () => {
    expect(isSubset({ org: 'a' }, { org: 'a', team: 't' })).toBe(true);
    expect(isSubset({ team: ['x', 'y'] }, { team: ['x', 'y', 'z'] })).toBe(true);
    expect(isSubset({ team: ['x', 'y'] }, { team: 'x' })).toBe(false);
    expect(isSubset({ org: 'a', team: 't' }, { org: 'a' })).toBe(false);
    expect(isSubset({ org: 'b' }, { org: 'a' })).toBe(false);
  });

  it('behaves like visibility for scalars and accepts empty claims', () => {
    expect(isSubset({ org: 'a' }, { org: 'a' })).toBe(isVisible({ org: 'a' }, { org: 'a' }));
    expect(isSubset({}, { org: 'a' })).toBe(true);
    expect(isSubset({ team: [] }, { team: 'x' })).toBe(false);
  });
});

describe('roles', () => {
  const manageEntries: ClaimMap[] = [{ role: 'writer' }, { team: ['platform', 'data'] }];

  it('is granted when any one claim map matches, every key of it', () => {
    expect(hasRole(manageEntries, { role: 'writer' })).toBe(true);
    expect(hasRole(manageEntries, { team: 'data' })).toBe(true);
    expect(hasRole(manageEntries, { team: 'web', role: 'reader' })).toBe(false);
    expect(hasRole([{ org: 'acme', role: 'admin' }], { org: 'acme', role: ['admin', 'dev'] })).toBe(true);
    expect(hasRole([{ org: 'acme', role: 'admin' }], { org: 'acme' })).toBe(false);
    expect(hasRole(undefined, { role: 'writer' })).toBe(false);
  });
});
