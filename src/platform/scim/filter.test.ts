import { describe, expect, it } from 'vitest';
import { matchesFilter, parseFilter, simpleEquality } from './filter.js';

const barbara = {
  id: '2819c223-7f76-453a-919d-413861904646',
  externalId: 'BJensen',
  userName: 'bjensen@example.com',
  displayName: 'Babs Jensen',
  active: true,
  name: { givenName: 'Barbara', familyName: 'Jensen' },
  emails: [
    { value: 'bjensen@example.com', type: 'work', primary: true },
    { value: 'babs@jensen.org', type: 'home' },
  ],
  meta: { created: '2026-01-23T04:56:22.000Z', lastModified: '2026-05-13T04:42:34.000Z' },
};
const matches = (expression: string) => matchesFilter(parseFilter(expression, 'User'), barbara, 'User');

describe('SCIM filters (RFC 7644 §3.4.2.2)', () => {
  it('compares attribute names and most strings ignoring case', () => {
    expect(matches('USERNAME eq "BJENSEN@example.com"')).toBe(true);
    expect(matches('name.familyName co "ENS"')).toBe(true);
    expect(matches('displayName sw "babs" and displayName ew "SEN"')).toBe(true);
  });

  it('compares id and externalId exactly', () => {
    expect(matches('externalId eq "BJensen"')).toBe(true);
    expect(matches('externalId eq "bjensen"')).toBe(false);
  });

  it('evaluates value paths, presence, negation and grouping', () => {
    expect(matches('emails[type eq "home" and value ew ".org"]')).toBe(true);
    expect(matches('emails[type eq "other"]')).toBe(false);
    expect(matches('name.givenName pr and not (active eq false)')).toBe(true);
    expect(matches('(userName eq "x" or userName eq "y") and active eq true')).toBe(false);
  });

  it('compares dates as instants and booleans as booleans', () => {
    expect(matches('meta.lastModified gt "2026-05-13T04:42:33Z"')).toBe(true);
    expect(matches('meta.created ge "2026-01-23T04:56:22Z"')).toBe(true);
    expect(matches('meta.created lt "2026-01-01T00:00:00Z"')).toBe(false);
    expect(matches('active eq true')).toBe(true);
  });

  it('accepts the core schema URN prefix and refuses other attributes and bad syntax as invalidFilter', () => {
    expect(matches('urn:ietf:params:scim:schemas:core:2.0:User:userName eq "bjensen@example.com"')).toBe(true);
    expect(() => parseFilter('password eq "x"', 'User')).toThrow(expect.objectContaining({ status: 400, scimType: 'invalidFilter' }) as Error);
    expect(() => parseFilter('userName eq', 'User')).toThrow(expect.objectContaining({ scimType: 'invalidFilter' }) as Error);
    expect(() => parseFilter('userName eq "x"', 'Group')).toThrow(expect.objectContaining({ scimType: 'invalidFilter' }) as Error);
  });

  it('hands one equality on an indexed attribute to the database', () => {
    expect(simpleEquality(parseFilter('userName eq "a"', 'User'), 'User')).toEqual({ attribute: 'userName', value: 'a' });
    expect(simpleEquality(parseFilter('displayName eq "Admins"', 'Group'), 'Group')).toEqual({ attribute: 'displayName', value: 'Admins' });
    expect(simpleEquality(parseFilter('displayName eq "a"', 'User'), 'User')).toBeUndefined();
    expect(simpleEquality(parseFilter('userName eq "a" and active eq true', 'User'), 'User')).toBeUndefined();
  });
});
