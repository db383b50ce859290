/*
 * SCIM 2.0 conformance, written from RFC 7643 and RFC 7644 section by section (no SCIM conformance
 * collection can be had offline), plus the quirks real identity providers send (Entra, Okta). Each
 * describe names the section it checks.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabaseTargets } from '../../src/core/db/database-testing.js';
import { createIdentityResolver } from '../../src/platform/identity/resolver.js';
import { createAuditTrail } from '../../src/platform/audit/service.js';
import { systemClock } from '../../src/core/clock.js';
import { randomIds } from '../../src/core/ids.js';
import type { Group, Page, User } from '../../src/platform/directory/schemas.js';
import type { Actor } from '../../src/platform/identity/actor.js';
import type { OidcProvider } from '../helpers/oidc-provider.js';
import { createDirectoryPlatform, SCIM_TOKEN, type DirectoryFixture } from './directory-testing.js';
import { startTestProvider } from './helpers.js';

type Resource = Record<string, unknown> & { id: string; meta: { version: string; location: string; created: string; lastModified: string; resourceType: string } };
interface ListResponse {
  schemas: string[];
  totalResults: number;
  startIndex: number;
  itemsPerPage: number;
  Resources: Resource[];
}
const USER_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:User';
const ENTERPRISE = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';
const ERROR_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:Error';
const PATCH_OP = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';

describe.each(testDatabaseTargets().map((target) => [target.name, target] as const))('SCIM 2.0 conformance (%s)', (_name, target) => {
  let provider: OidcProvider;
  let fixture: DirectoryFixture;
  let admin: string;
  const patch = (path: string, operations: unknown[], options: { as?: 'okta' | 'entra'; headers?: Record<string, string> } = {}) =>
    fixture.scim<Resource>('PATCH', path, { schemas: [PATCH_OP], Operations: operations }, options);
  const list = async (path: string, as: 'okta' | 'entra' = 'okta') => (await fixture.scim<ListResponse>('GET', path, undefined, { as })).body;
  const filter = async (kind: 'Users' | 'Groups', expression: string) => (await list(`/${kind}?filter=${encodeURIComponent(expression)}`)).Resources.map((resource) => (kind === 'Users' ? resource.userName : resource.displayName));

  beforeAll(async () => {
    provider = await startTestProvider();
    fixture = await createDirectoryPlatform(provider, target);
    admin = await provider.mint({ sub: 'admin', claims: { roles: ['admin'] } });
  });
  afterAll(async () => {
    await fixture.platform.dispose();
    await provider.close();
  });

  describe('RFC 7644 §2 authentication and authorization', () => {
    it('answers 401 with WWW-Authenticate: Bearer realm="scim" without the provisioner token', async () => {
      for (const authorization of [undefined, 'Bearer wrong', `Basic ${SCIM_TOKEN}`, `Bearer ${SCIM_TOKEN}x`]) {
        const response = await fixture.platform.call<{ schemas: string[]; status: string }>('GET', '/scim/v2/okta/Users', { headers: authorization === undefined ? {} : { authorization } });
        expect(response.status).toBe(401);
        expect(response.headers['www-authenticate']).toBe('Bearer realm="scim"');
        expect(response.body).toMatchObject({ schemas: [ERROR_SCHEMA], status: '401' });
      }
    });

    it('answers 404 for an unknown provisioner and refuses one provisioner\'s token at another', async () => {
      expect((await fixture.platform.call('GET', '/scim/v2/nobody/Users', { token: SCIM_TOKEN })).status).toBe(404);
      expect((await fixture.platform.call('GET', '/scim/v2/entra/Users', { token: SCIM_TOKEN })).status).toBe(401);
    });

    it('does not accept a platform OAuth token', async () => {
      expect((await fixture.platform.call('GET', '/scim/v2/okta/Users', { token: admin })).status).toBe(401);
    });
  });

  describe('RFC 7644 §3.3 creating resources, RFC 7643 §4.1 User', () => {
    it('creates a user: 201, Location, meta, the resource as sent without password', async () => {
      const body = {
        schemas: [USER_SCHEMA, ENTERPRISE],
        userName: 'bjensen@example.com',
        externalId: 'bjensen',
        name: { formatted: 'Ms. Barbara J Jensen III', familyName: 'Jensen', givenName: 'Barbara' },
        emails: [
          { value: 'bjensen@home.example.com', type: 'home' },
          { value: 'bjensen@example.com', type: 'work', primary: true },
        ],
        photos: [{ value: 'https://photos.example.com/bjensen.jpg', type: 'photo' }],
        password: 't1meMa$heen',
        [ENTERPRISE]: { department: 'Tour Operations', manager: { value: 'boss' } },
      };
      const response = await fixture.scim<Resource>('POST', '/Users', body);
      expect(response.status).toBe(201);
      expect(response.headers['content-type']).toMatch(/^application\/scim\+json/);
      expect(response.headers.location).toBe(`https://platform.example.com/scim/v2/okta/Users/${response.body.id}`);
      expect(response.headers.etag).toBe(response.body.meta.version);
      expect(response.body.meta).toMatchObject({ resourceType: 'User', location: response.headers.location });
      expect(response.body.meta.version).toMatch(/^W\/"[0-9a-f]+"$/);
      expect(response.body).toMatchObject({ userName: 'bjensen@example.com', externalId: 'bjensen', active: true, groups: [], [ENTERPRISE]: { department: 'Tour Operations' }, name: body.name, emails: body.emails });
      expect(response.body).not.toHaveProperty('password');
      expect(JSON.stringify(response.body)).not.toContain('t1meMa$heen');

      const user = await fixture.platform.call<User>('GET', `/v1/users/${response.body.id}`, { token: admin });
      expect(user.body).toMatchObject({ user_name: 'bjensen@example.com', display_name: 'Ms. Barbara J Jensen III', email: 'bjensen@example.com', photo_url: 'https://photos.example.com/bjensen.jpg', active: true, source: 'scim:okta' });
    });

    it('accepts application/json bodies too and defaults displayName to userName', async () => {
      const response = await fixture.platform.call<Resource>('POST', '/scim/v2/okta/Users', { token: SCIM_TOKEN, body: { userName: 'plain-json' } });
      expect(response.status).toBe(201);
      expect((await fixture.platform.call<User>('GET', `/v1/users/${response.body.id}`, { token: admin })).body.display_name).toBe('plain-json');
    });

    it('refuses a userName taken in this provisioner, ignoring case: 409 uniqueness', async () => {
      await fixture.scimUser('unique-user');
      const again = await fixture.scim('POST', '/Users', { userName: 'UNIQUE-user' });
      expect(again.status).toBe(409);
      expect(again.body).toMatchObject({ schemas: [ERROR_SCHEMA], status: '409', scimType: 'uniqueness' });
      expect((await fixture.scim('POST', '/Users', { userName: 'unique-user' }, { as: 'entra' })).status).toBe(201);
    });

    it('refuses a user without userName: 400 invalidValue', async () => {
      const response = await fixture.scim('POST', '/Users', { displayName: 'nameless' });
      expect(response.status).toBe(400);
      expect(response.body).toMatchObject({ scimType: 'invalidValue' });
      expect(response.body.detail).toMatch(/userName/);
    });
  });

  describe('RFC 7644 §3.4.1 retrieving a known resource, §3.14 versioning', () => {
    it('gets a resource with its weak ETag; 404 for unknown ids and another provisioner\'s records', async () => {
      const id = await fixture.scimUser('get-me');
      const response = await fixture.scim<Resource>('GET', `/Users/${id}`);
      expect(response.status).toBe(200);
      expect(response.headers.etag).toMatch(/^W\/"/);
      expect((await fixture.scim('GET', '/Users/00000000-0000-4000-8000-000000000000')).status).toBe(404);
      expect((await fixture.scim('GET', '/Users/not-an-id')).status).toBe(404);
      const other = await fixture.scim('GET', `/Users/${id}`, undefined, { as: 'entra' });
      expect(other.status).toBe(404);
      expect(other.body).toMatchObject({ schemas: [ERROR_SCHEMA], status: '404' });
      expect((await list('/Users', 'entra')).Resources.some((resource) => resource.id === id)).toBe(false);
    });

    it('refuses a stale If-Match with 412 and accepts the current version', async () => {
      const id = await fixture.scimUser('versioned');
      const read = await fixture.scim<Resource>('GET', `/Users/${id}`);
      const version = read.body.meta.version;
      const changed = await fixture.scim<Resource>('PUT', `/Users/${id}`, { userName: 'versioned', displayName: 'V1' }, { headers: { 'if-match': version } });
      expect(changed.status).toBe(200);
      expect(changed.body.meta.version).not.toBe(version);
      expect((await patch(`/Users/${id}`, [{ op: 'replace', path: 'displayName', value: 'V2' }], { headers: { 'if-match': version } })).status).toBe(412);
      expect((await fixture.scim('DELETE', `/Users/${id}`, undefined, { headers: { 'if-match': version } })).status).toBe(412);
      expect((await fixture.scim('DELETE', `/Users/${id}`, undefined, { headers: { 'if-match': changed.body.meta.version } })).status).toBe(204);
    });
  });

  describe('RFC 7644 §3.4.2 query resources: filtering, paging, attributes', () => {
    beforeAll(async () => {
      await fixture.scimUser('filter-ann', { externalId: 'Ext-Ann', displayName: 'Ann Example', name: { givenName: 'Ann', familyName: 'Example' }, emails: [{ value: 'ann@work.example', type: 'work' }], title: 'Engineer' });
      await fixture.scimUser('filter-ben', { externalId: 'ext-ben', displayName: 'Ben Sample', emails: [{ value: 'ben@home.example', type: 'home' }], active: false });
      await fixture.scimUser('filter-cat', { displayName: 'Cat Example', emails: [{ value: 'cat@work.example', type: 'work' }] });
    });

    it('§3.4.2.2 supports every operator, logical operators, parentheses and value paths', async () => {
      expect(await filter('Users', 'userName eq "FILTER-ANN"')).toEqual(['filter-ann']);
      expect(await filter('Users', 'userName ne "filter-ann" and userName sw "filter-"')).toEqual(['filter-ben', 'filter-cat']);
      expect(await filter('Users', 'displayName co "example"')).toEqual(['filter-ann', 'filter-cat']);
      expect(await filter('Users', 'displayName ew "SAMPLE"')).toEqual(['filter-ben']);
      expect(await filter('Users', 'userName sw "filter-" and name.middleName pr')).toEqual([]);
      expect(await filter('Users', 'userName sw "filter-" and name.givenName pr')).toEqual(['filter-ann']);
      expect(await filter('Users', 'userName sw "filter-" and not (active eq true)')).toEqual(['filter-ben']);
      expect(await filter('Users', 'userName eq "filter-ann" or userName eq "filter-cat"')).toEqual(['filter-ann', 'filter-cat']);
      expect(await filter('Users', 'emails[type eq "work" and value co "@work."]')).toEqual(['filter-ann', 'filter-cat']);
      expect(await filter('Users', 'emails.value ew "home.example"')).toEqual(['filter-ben']);
      expect(await filter('Users', 'name.givenName eq "ann"')).toEqual(['filter-ann']);
      expect(await filter('Users', 'userName gt "filter-ann" and userName le "filter-cat"')).toEqual(['filter-ben', 'filter-cat']);
      expect(await filter('Users', `${USER_SCHEMA}:userName eq "filter-cat"`)).toEqual(['filter-cat']);
      expect(await filter('Users', 'USERNAME Eq "filter-cat"')).toEqual(['filter-cat']);
      expect(await filter('Users', 'meta.created gt "2000-01-01T00:00:00Z" and userName sw "filter-c"')).toEqual(['filter-cat']);
      expect(await filter('Users', 'meta.created lt "2000-01-01T00:00:00Z"')).toEqual([]);
    });

    it('compares id and externalId case-exactly', async () => {
      expect(await filter('Users', 'externalId eq "Ext-Ann"')).toEqual(['filter-ann']);
      expect(await filter('Users', 'externalId eq "ext-ann"')).toEqual([]);
      expect(await filter('Users', 'externalId sw "ext-" and userName sw "filter"')).toEqual(['filter-ben']);
    });

    it('refuses a malformed filter or an unfilterable attribute: 400 invalidFilter', async () => {
      for (const expression of ['userName eq', 'userName xx "a"', '(userName eq "a"', 'password eq "x"']) {
        const response = await fixture.scim('GET', `/Users?filter=${encodeURIComponent(expression)}`);
        expect(response.status, expression).toBe(400);
        expect(response.body).toMatchObject({ schemas: [ERROR_SCHEMA], status: '400', scimType: 'invalidFilter' });
      }
    });

    it('§3.4.2.4 pages with 1-based startIndex and count, in creation order; count=0 gives the total only', async () => {
      const all = await list('/Users?filter=userName%20sw%20%22filter-%22');
      expect(all).toMatchObject({ schemas: ['urn:ietf:params:scim:api:messages:2.0:ListResponse'], totalResults: 3, startIndex: 1, itemsPerPage: 3 });
      const second = await list('/Users?filter=userName%20sw%20%22filter-%22&startIndex=2&count=1');
      expect(second).toMatchObject({ totalResults: 3, startIndex: 2, itemsPerPage: 1 });
      expect(second.Resources.map((resource) => resource.userName)).toEqual(['filter-ben']);
      expect((await list('/Users?startIndex=0&count=1')).startIndex).toBe(1);
      const totals = await list('/Users?count=0');
      expect(totals.Resources).toEqual([]);
      expect(totals.totalResults).toBeGreaterThan(3);
      const created = (await list('/Users')).Resources.map((resource) => resource.meta.created);
      expect(created).toEqual([...created].sort());
      expect((await fixture.scim('GET', '/Users?count=abc')).status).toBe(400);
    });

    it('§3.4.2.5 honours attributes and excludedAttributes, always keeping id, schemas and meta', async () => {
      const only = (await list('/Users?filter=userName%20eq%20%22filter-ann%22&attributes=userName,name.givenName')).Resources[0];
      expect(Object.keys(only ?? {}).sort()).toEqual(['id', 'meta', 'name', 'schemas', 'userName']);
      expect(only?.name).toEqual({ givenName: 'Ann' });
      const without = (await list('/Users?filter=userName%20eq%20%22filter-ann%22&excludedAttributes=emails,groups')).Resources[0];
      expect(without).not.toHaveProperty('emails');
      expect(without).not.toHaveProperty('groups');
      expect(without).toHaveProperty('userName');
    });
  });

  describe('RFC 7644 §3.5.1 replacing with PUT', () => {
    it('replaces the whole resource: omitted attributes are cleared, active omitted is true', async () => {
      const id = await fixture.scimUser('put-user', { displayName: 'Before', title: 'Boss', active: false, emails: [{ value: 'put@example.com' }] });
      const response = await fixture.scim<Resource>('PUT', `/Users/${id}`, { schemas: [USER_SCHEMA], userName: 'put-user', displayName: 'After' });
      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({ displayName: 'After', active: true });
      expect(response.body).not.toHaveProperty('title');
      expect(response.body).not.toHaveProperty('emails');
      const user = await fixture.platform.call<User>('GET', `/v1/users/${id}`, { token: admin });
      expect(user.body).toMatchObject({ display_name: 'After', email: null, active: true });
    });
  });

  describe('RFC 7644 §3.5.2 modifying with PATCH', () => {
    it('adds, replaces and removes attributes', async () => {
      const id = await fixture.scimUser('patch-user', { emails: [{ value: 'p@home.example', type: 'home' }] });
      const response = await patch(`/Users/${id}`, [
        { op: 'add', path: 'title', value: 'Lead' },
        { op: 'replace', path: 'displayName', value: 'Patched' },
        { op: 'add', path: 'emails', value: [{ value: 'p@work.example', type: 'work', primary: true }] },
        { op: 'remove', path: 'emails[type eq "home"]' },
      ]);
      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({ title: 'Lead', displayName: 'Patched', emails: [{ value: 'p@work.example', type: 'work', primary: true }] });
      expect((await fixture.platform.call<User>('GET', `/v1/users/${id}`, { token: admin })).body).toMatchObject({ display_name: 'Patched', email: 'p@work.example' });
      expect((await patch(`/Users/${id}`, [{ op: 'remove', path: 'title' }])).body).not.toHaveProperty('title');
    });

    it('refuses an unknown op or a body without Operations: 400 invalidSyntax', async () => {
      const id = await fixture.scimUser('bad-patch');
      expect((await patch(`/Users/${id}`, [{ op: 'move', path: 'title', value: 'x' }])).body).toMatchObject({ status: '400', scimType: 'invalidSyntax' });
      expect((await fixture.scim('PATCH', `/Users/${id}`, { schemas: [PATCH_OP] })).status).toBe(400);
      expect((await patch(`/Users/${id}`, [{ op: 'remove' }])).status).toBe(400);
    });

    it('ignores id and meta, and needs no schemas', async () => {
      const id = await fixture.scimUser('ignore-id');
      const response = await fixture.scim<Resource>('PATCH', `/Users/${id}`, { Operations: [{ op: 'replace', path: 'id', value: 'other' }, { op: 'replace', value: { id: 'x', meta: {}, nickName: 'Iggy' } }] });
      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({ id, nickName: 'Iggy' });
    });
  });

  describe('RFC 7643 §4.2 Group, RFC 7644 §3.5.2 member changes', () => {
    it('creates groups with user and group members (type inferred) and shows each user\'s direct groups', async () => {
      const ann = await fixture.scimUser('member-ann');
      const ben = await fixture.scimUser('member-ben');
      const inner = await fixture.scim<Resource>('POST', '/Groups', { displayName: 'Inner', members: [{ value: ann }] });
      expect(inner.status).toBe(201);
      expect(inner.headers.location).toBe(`https://platform.example.com/scim/v2/okta/Groups/${inner.body.id}`);
      const outer = await fixture.scim<Resource>('POST', '/Groups', { displayName: 'Outer', members: [{ value: inner.body.id }, { value: ben, type: 'User' }] });
      expect(outer.body.members).toEqual(
        expect.arrayContaining([expect.objectContaining({ value: inner.body.id, type: 'Group' }), expect.objectContaining({ value: ben, type: 'User', display: 'member-ben' })]),
      );
      expect((await fixture.scim<Resource>('GET', `/Users/${ann}`)).body.groups).toEqual([expect.objectContaining({ value: inner.body.id, display: 'Inner' })]);
      const group = await fixture.platform.call<Group>('GET', `/v1/groups/${outer.body.id}`, { token: admin });
      expect(group.body).toMatchObject({ name: 'Outer', source: 'scim:okta', transitive_member_count: 2 });
      expect(await filter('Groups', `members.value eq "${ann}"`)).toEqual(['Inner']);
      expect(await filter('Groups', 'displayName eq "OUTER"')).toEqual(['Outer']);
    });

    it('refuses unknown members, another provisioner\'s ids and cycles: 400 invalidValue; duplicate names 409', async () => {
      const foreign = await fixture.scimUser('foreign-user');
      const entraUser = (await fixture.scim<Resource>('POST', '/Users', { userName: 'entra-only' }, { as: 'entra' })).body.id;
      expect((await fixture.scim('POST', '/Groups', { displayName: 'Bad', members: [{ value: '00000000-0000-4000-8000-000000000000' }] })).body).toMatchObject({ status: '400', scimType: 'invalidValue' });
      expect((await fixture.scim('POST', '/Groups', { displayName: 'Bad', members: [{ value: entraUser }] })).status).toBe(400);
      const a = await fixture.scim<Resource>('POST', '/Groups', { displayName: 'Cycle A', members: [{ value: foreign }] });
      const b = await fixture.scim<Resource>('POST', '/Groups', { displayName: 'Cycle B', members: [{ value: a.body.id }] });
      const cycle = await patch(`/Groups/${a.body.id}`, [{ op: 'add', path: 'members', value: [{ value: b.body.id }] }]);
      expect(cycle.body).toMatchObject({ status: '400', scimType: 'invalidValue' });
      expect((await patch(`/Groups/${a.body.id}`, [{ op: 'add', path: 'members', value: [{ value: a.body.id }] }])).status).toBe(400);
      expect((await fixture.scim('POST', '/Groups', { displayName: 'cycle a' })).body).toMatchObject({ status: '409', scimType: 'uniqueness' });
    });
  });

  describe('RFC 7644 §3.6 deleting resources', () => {
    it('deletes users and groups (204), with their memberships; then 404', async () => {
      const gone = await fixture.scimUser('to-delete', { externalId: 'to-delete-ext' });
      const group = await fixture.scim<Resource>('POST', '/Groups', { displayName: 'Loses a member', members: [{ value: gone }] });
      const before = group.body.meta.version;
      expect((await fixture.scim('DELETE', `/Users/${gone}`)).status).toBe(204);
      expect((await fixture.scim('GET', `/Users/${gone}`)).status).toBe(404);
      expect((await fixture.scim('DELETE', `/Users/${gone}`)).status).toBe(404);
      const after = await fixture.scim<Resource>('GET', `/Groups/${group.body.id}`);
      expect(after.body.members).toEqual([]);
      expect(after.body.meta.version).not.toBe(before);
      expect((await fixture.platform.call('GET', `/v1/users/${gone}`, { token: admin })).status).toBe(404);
      expect((await fixture.scim('DELETE', `/Groups/${group.body.id}`)).status).toBe(204);
      expect((await fixture.platform.call('GET', `/v1/groups/${group.body.id}`, { token: admin })).status).toBe(404);
    });
  });

  describe('RFC 7644 §3.7 bulk, §3.11 /Me, §3.4.3 POST .search: not supported (501)', () => {
    it('answers 501 with a SCIM error', async () => {
      for (const [method, path] of [
        ['POST', '/Bulk'],
        ['GET', '/Me'],
        ['POST', '/.search'],
        ['POST', '/Users/.search'],
      ] as const) {
        const response = await fixture.scim(method, path, method === 'POST' ? {} : undefined);
        expect(response.status, path).toBe(501);
        expect(response.body).toMatchObject({ schemas: [ERROR_SCHEMA], status: '501' });
      }
    });
  });

  describe('RFC 7644 §4 service provider configuration endpoints, RFC 7643 §5–7', () => {
    it('describes what it supports', async () => {
      const config = await fixture.scim('GET', '/ServiceProviderConfig');
      expect(config.body).toMatchObject({
        patch: { supported: true },
        bulk: { supported: false },
        filter: { supported: true, maxResults: 1000 },
        changePassword: { supported: false },
        sort: { supported: false },
        etag: { supported: true },
        authenticationSchemes: [expect.objectContaining({ type: 'oauthbearertoken' })],
      });
      const types = await list('/ResourceTypes');
      expect(types.Resources.map((type) => type.id)).toEqual(['User', 'Group']);
      expect((await fixture.scim('GET', '/ResourceTypes/User')).body).toMatchObject({ endpoint: '/Users', schema: USER_SCHEMA });
      const schemas = await list('/Schemas');
      expect(schemas.Resources.map((schema) => schema.id)).toEqual([USER_SCHEMA, 'urn:ietf:params:scim:schemas:core:2.0:Group', ENTERPRISE]);
      expect((await fixture.scim<{ attributes: { name: string }[] }>('GET', `/Schemas/${USER_SCHEMA}`)).body.attributes.map((attribute) => attribute.name)).toContain('userName');
      expect((await fixture.scim('GET', '/Schemas/urn:nope')).status).toBe(404);
    });
  });

  describe('RFC 7644 §3.12 error responses', () => {
    it('answers malformed JSON with a SCIM error body', async () => {
      const response = await fixture.platform.call('POST', '/scim/v2/okta/Users', { token: SCIM_TOKEN, body: '{not json', headers: { 'content-type': 'application/scim+json' } });
      expect(response.status).toBe(400);
      expect(response.body).toMatchObject({ schemas: [ERROR_SCHEMA], status: '400' });
      expect(response.headers['content-type']).toMatch(/^application\/scim\+json/);
    });
  });

  describe('identity provider quirks', () => {
    it('Entra: capitalised ops, string booleans, path-less replace with path keys, add to emails[type eq "work"].value', async () => {
      const id = await fixture.scimUser('entra-style', { emails: [{ value: 'old@home.example', type: 'home' }] });
      const response = await patch(`/Users/${id}`, [
        { op: 'Replace', path: 'active', value: 'False' },
        { op: 'Replace', value: { 'name.givenName': 'Eve', [`${ENTERPRISE}:department`]: 'Sales', displayName: 'Eve Entra' } },
        { op: 'Add', path: 'emails[type eq "work"].value', value: 'eve@work.example' },
      ]);
      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({ active: false, name: { givenName: 'Eve' }, [ENTERPRISE]: { department: 'Sales' }, displayName: 'Eve Entra' });
      expect(response.body.emails).toEqual(expect.arrayContaining([expect.objectContaining({ type: 'work', value: 'eve@work.example' })]));
      expect((await fixture.platform.call<User>('GET', `/v1/users/${id}`, { token: admin })).body).toMatchObject({ active: false, email: 'eve@work.example' });
      expect((await patch(`/Users/${id}`, [{ op: 'replace', value: { active: 'True' } }])).body.active).toBe(true);
    });

    it('Entra: member removal with path members and a value list; Okta: members[value eq] and members without type', async () => {
      const [a, b, c] = [await fixture.scimUser('quirk-a'), await fixture.scimUser('quirk-b'), await fixture.scimUser('quirk-c')];
      const group = (await fixture.scim<Resource>('POST', '/Groups', { displayName: 'Quirky', members: [] })).body.id;
      const ids = async () => ((await fixture.scim<Resource>('GET', `/Groups/${group}`)).body.members as { value: string }[]).map((member) => member.value).sort();
      expect((await patch(`/Groups/${group}`, [{ op: 'Add', path: 'members', value: [{ value: a }, { value: b }, { value: c }] }])).status).toBe(200);
      expect(await ids()).toEqual([a, b, c].sort());
      await patch(`/Groups/${group}`, [{ op: 'Remove', path: 'members', value: [{ value: a }] }]);
      expect(await ids()).toEqual([b, c].sort());
      await patch(`/Groups/${group}`, [{ op: 'remove', path: `members[value eq "${b}"]` }]);
      expect(await ids()).toEqual([c]);
      expect((await patch(`/Groups/${group}`, [{ op: 'remove', path: `members[value eq "${a}"]` }])).status).toBe(200);
      expect((await patch(`/Groups/${group}`, [{ op: 'add', path: 'members', value: [{ value: c }] }])).status).toBe(200);
      expect(await ids()).toEqual([c]);
      await patch(`/Groups/${group}`, [{ op: 'replace', path: 'members', value: [{ value: a }, { value: b }] }]);
      expect(await ids()).toEqual([a, b].sort());
      const renamed = await patch(`/Groups/${group}`, [{ op: 'replace', value: { id: group, displayName: 'Quirky Renamed' } }]);
      expect(renamed.body.displayName).toBe('Quirky Renamed');
      const excluded = await fixture.scim<Resource>('GET', `/Groups/${group}?excludedAttributes=members`);
      expect(excluded.body).not.toHaveProperty('members');
      expect(excluded.body.displayName).toBe('Quirky Renamed');
    });

    it('Okta: active false only deactivates; reactivation restores', async () => {
      const id = await fixture.scimUser('okta-deactivated');
      await fixture.scim('PATCH', `/Users/${id}`, { schemas: [PATCH_OP], Operations: [{ op: 'replace', value: { active: false } }] });
      const users = await fixture.platform.call<Page<User>>('GET', '/v1/users?active=false&user_name=okta-deactivated', { token: admin });
      expect(users.body.items.map((user) => user.id)).toEqual([id]);
      await patch(`/Users/${id}`, [{ op: 'replace', path: 'active', value: true }]);
      expect((await fixture.platform.call<User>('GET', `/v1/users/${id}`, { token: admin })).body.active).toBe(true);
    });
  });

  describe('identity binding and adoption (PLATFORM-API Part 2 §2.3)', () => {
    const actorOf = (sub: string, claims: Record<string, unknown> = {}): Actor => ({ kind: 'user', issuer: provider.issuer, subject: sub, claims: { iss: provider.issuer, sub, ...claims }, provider: 'test', roles: new Set(), requestId: null });
    const resolver = () => {
      const { db } = fixture.platform.database;
      return createIdentityResolver({ db, clock: systemClock, ids: randomIds, config: fixture.platform.config, audit: createAuditTrail({ db, clock: systemClock, ids: randomIds }) });
    };

    it('binds a SCIM user to tokens by externalId and resolves its direct and inherited groups', async () => {
      const id = await fixture.scimUser('bound-user', { externalId: 'sub-bound' });
      const inner = (await fixture.scim<Resource>('POST', '/Groups', { displayName: 'Bound inner', members: [{ value: id }] })).body.id;
      const outer = (await fixture.scim<Resource>('POST', '/Groups', { displayName: 'Bound outer', members: [{ value: inner }] })).body.id;
      const identity = await resolver().resolve(actorOf('sub-bound'));
      expect(identity.user.id).toBe(id);
      expect(identity.groupIds).toEqual([inner, outer].sort());
    });

    it('binds by userName for a provisioner configured so', async () => {
      const created = await fixture.scim<Resource>('POST', '/Users', { userName: 'sub-by-username', externalId: 'ignored' }, { as: 'entra' });
      expect((await resolver().resolve(actorOf('sub-by-username'))).user.id).toBe(created.body.id);
    });

    it('takes over a just-in-time user with the same binding: same id', async () => {
      const jit = await resolver().resolve(actorOf('sub-jit', { preferred_username: 'jit-person' }));
      expect(jit.user.source).toBe('jit');
      const adopted = await fixture.scim<Resource>('POST', '/Users', { userName: 'jit-person@example.com', externalId: 'sub-jit' });
      expect(adopted.status).toBe(201);
      expect(adopted.body.id).toBe(jit.user.id);
      expect((await fixture.platform.call<User>('GET', `/v1/users/${jit.user.id}`, { token: admin })).body).toMatchObject({ source: 'scim:okta', user_name: 'jit-person@example.com' });
      expect((await fixture.scim('POST', '/Users', { userName: 'someone-else', externalId: 'sub-jit' })).body).toMatchObject({ status: '409', scimType: 'uniqueness' });
    });

    it('deactivating a user refuses its own-data calls; deleting it revokes its keys', async () => {
      const id = await fixture.scimUser('key-holder', { externalId: 'sub-key-holder' });
      const token = await provider.mint({ sub: 'sub-key-holder' });
      const created = await fixture.platform.call<{ key: { id: string; status: string } }>('POST', '/v1/me/keys', { token, body: { name: 'laptop' } });
      expect(created.status).toBe(201);
      await patch(`/Users/${id}`, [{ op: 'replace', path: 'active', value: false }]);
      expect((await fixture.platform.call('GET', '/v1/me/keys', { token })).status).toBe(401);
      await patch(`/Users/${id}`, [{ op: 'replace', path: 'active', value: true }]);
      expect((await fixture.platform.call('GET', '/v1/me/keys', { token })).status).toBe(200);
      expect((await fixture.scim('DELETE', `/Users/${id}`)).status).toBe(204);
      const key = await fixture.platform.call<{ status: string }>('GET', `/v1/keys/${created.body.key.id}`, { token: admin });
      expect(key.body.status).toBe('revoked');
    });

    it('an inactive SCIM user resolves to 401', async () => {
      await fixture.scimUser('sub-inactive-user', { externalId: 'sub-inactive', active: false });
      await expect(resolver().resolve(actorOf('sub-inactive'))).rejects.toMatchObject({ status: 401 });
    });
  });
});
