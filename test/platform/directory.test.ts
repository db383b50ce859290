import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabaseTargets } from '../../src/core/db/database-testing.js';
import { TOPICS } from '../../src/platform/context.js';
import type { Group, Members, Page, User } from '../../src/platform/directory/schemas.js';
import type { OidcProvider } from '../helpers/oidc-provider.js';
import { createDirectoryPlatform, type DirectoryFixture } from './directory-testing.js';
import { startTestProvider, type CallOptions } from './helpers.js';

const UNKNOWN = '00000000-0000-4000-8000-000000000000';

describe.each(testDatabaseTargets().map((target) => [target.name, target] as const))('directory over /v1 (%s)', (_name, target) => {
  let provider: OidcProvider;
  let fixture: DirectoryFixture;
  let admin: string;
  let directoryAdmin: string;
  let auditor: string;
  let billing: string;
  let noRole: string;
  const users: Record<string, string> = {};
  let oktaGroup: string;

  const call = <T>(method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, options: CallOptions = {}) => fixture.platform.call<T>(method, url, { token: admin, ...options });
  const createGroup = async (name: string, extra: Record<string, unknown> = {}) => {
    const response = await call<Group>('POST', '/v1/groups', { token: directoryAdmin, body: { name, ...extra } });
    expect(response.status, response.text).toBe(201);
    return response.body;
  };

  beforeAll(async () => {
    provider = await startTestProvider();
    fixture = await createDirectoryPlatform(provider, target, { directory: { jitProvisioning: false } });
    admin = await provider.mint({ sub: 'admin', claims: { roles: ['admin'] } });
    directoryAdmin = await provider.mint({ sub: 'dir-admin', claims: { roles: ['directoryAdmin'] } });
    auditor = await provider.mint({ sub: 'auditor', claims: { roles: ['auditor'] } });
    billing = await provider.mint({ sub: 'billing', claims: { roles: ['billingAdmin'] } });
    noRole = await provider.mint({ sub: 'nobody' });
    for (const [userName, email, active] of [
      ['alice', 'Alice@Example.com', true],
      ['bob', 'bob@example.com', true],
      ['carol', 'carol@example.com', false],
      ['dave', 'dave@other.org', true],
    ] as const) {
      users[userName] = await fixture.scimUser(userName, { displayName: `${userName[0]?.toUpperCase() ?? ''}${userName.slice(1)} Person`, emails: [{ value: email, type: 'work', primary: true }], active });
    }
    const created = await fixture.scim<{ id: string }>('POST', '/Groups', { displayName: 'okta-engineering', members: [{ value: users.dave }] });
    oktaGroup = created.body.id;
  });
  afterAll(async () => {
    await fixture.platform.dispose();
    await provider.close();
  });

  describe('groups', () => {
    it('creates a group with defaults, an ETag and every field', async () => {
      const response = await call<Group>('POST', '/v1/groups', { token: directoryAdmin, body: { name: 'platform' } });
      expect(response.status).toBe(201);
      expect(response.headers.etag).toMatch(/^"[0-9a-f]+"$/);
      expect(Object.keys(response.body).sort()).toEqual(['created_at', 'description', 'display_name', 'id', 'members', 'name', 'source', 'transitive_member_count', 'updated_at']);
      expect(response.body).toMatchObject({ description: '', display_name: 'platform', members: [], name: 'platform', source: 'local', transitive_member_count: 0 });
      expect(response.body.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
      const read = await call<Group>('GET', `/v1/groups/${response.body.id}`, { token: auditor });
      expect(read.status).toBe(200);
      expect(read.headers.etag).toBe(response.headers.etag);
    });

    it('refuses a name taken by another local group, ignoring case (409)', async () => {
      await createGroup('Security');
      const again = await call<{ error: string }>('POST', '/v1/groups', { body: { name: 'SECURITY' } });
      expect(again.status).toBe(409);
      expect(again.body.error).toMatch(/already exists/);
    });

    it('refuses bad bodies with a 400 naming the field', async () => {
      for (const body of [{}, { name: '' }, { name: 'a\u0007b' }, { name: 'x'.repeat(129) }, { name: 'ok', colour: 'red' }, { name: 'ok', description: 'd'.repeat(1025) }]) {
        const response = await call<{ error: string }>('POST', '/v1/groups', { body });
        expect(response.status, JSON.stringify(body)).toBe(400);
        expect(response.body.error).not.toBe('');
      }
      expect((await call('PATCH', `/v1/groups/${oktaGroup}`, { body: {} })).status).toBe(400);
    });

    it('answers 400 for a non-UUID id and 404 for an unknown one', async () => {
      expect((await call('GET', '/v1/groups/not-a-uuid')).status).toBe(400);
      expect((await call('GET', `/v1/groups/${UNKNOWN}`)).status).toBe(404);
      expect((await call('GET', `/v1/users/${UNKNOWN}`)).status).toBe(404);
      expect((await call('GET', `/v1/users/${UNKNOWN}/groups`)).status).toBe(404);
      expect((await call('GET', `/v1/groups/${UNKNOWN}/members`)).status).toBe(404);
    });

    it('needs a token (401), a role to read (403) and directoryAdmin to write (403)', async () => {
      expect((await fixture.platform.call('GET', '/v1/groups')).status).toBe(401);
      expect((await call('GET', '/v1/groups', { token: noRole })).status).toBe(403);
      expect((await call('GET', '/v1/users', { token: noRole })).status).toBe(403);
      expect((await call('GET', '/v1/groups', { token: billing })).status).toBe(200);
      const group = await createGroup('readers');
      for (const token of [auditor, billing, noRole]) {
        expect((await call('POST', '/v1/groups', { token, body: { name: 'nope' } })).status).toBe(403);
        expect((await call('PATCH', `/v1/groups/${group.id}`, { token, body: { description: 'x' } })).status).toBe(403);
        expect((await call('POST', `/v1/groups/${group.id}/users/${users.alice ?? ''}`, { token })).status).toBe(403);
      }
    });

    it('serves readers that have no directory user of their own (no just-in-time provisioning here)', async () => {
      const stranger = await provider.mint({ sub: 'not-in-the-directory', claims: { roles: ['auditor'] } });
      const response = await call<Page<User>>('GET', '/v1/users', { token: stranger });
      expect(response.status).toBe(200);
      expect(response.body.items.some((user) => user.user_name === 'not-in-the-directory')).toBe(false);
    });
  });

  describe('nesting and members', () => {
    it('nests groups, counts distinct transitive users and lists members groups first', async () => {
      const company = await createGroup('company');
      const engineering = await createGroup('engineering');
      const backend = await createGroup('backend');
      expect((await call<Group>('POST', `/v1/groups/${company.id}/subgroups/${engineering.id}`)).status).toBe(200);
      expect((await call('POST', `/v1/groups/${engineering.id}/subgroups/${backend.id}`)).status).toBe(200);
      await call('POST', `/v1/groups/${backend.id}/users/${users.alice ?? ''}`);
      await call('POST', `/v1/groups/${engineering.id}/users/${users.alice ?? ''}`);
      await call('POST', `/v1/groups/${engineering.id}/users/${users.carol ?? ''}`);
      const added = await call<Group>('POST', `/v1/groups/${company.id}/users/${users.bob ?? ''}`);
      expect(added.status).toBe(200);
      expect(added.body.members).toEqual([
        { type: 'group', id: engineering.id, display: 'engineering' },
        { type: 'user', id: users.bob, display: 'Bob Person' },
      ]);
      expect(added.body.transitive_member_count).toBe(3);
      expect((await call<Group>('GET', `/v1/groups/${backend.id}`)).body.transitive_member_count).toBe(1);

      const mine = await call<Page<Group>>('GET', `/v1/users/${users.alice ?? ''}/groups`, { token: auditor });
      expect(mine.body.items.map((group) => group.name).sort()).toEqual(['backend', 'company', 'engineering']);
    });

    it('refuses a duplicate, a self link and a cycle (409) and a missing link or member (404)', async () => {
      const outer = await createGroup('outer');
      const inner = await createGroup('inner');
      await call('POST', `/v1/groups/${outer.id}/subgroups/${inner.id}`);
      await call('POST', `/v1/groups/${inner.id}/users/${users.bob ?? ''}`);
      expect((await call('POST', `/v1/groups/${outer.id}/subgroups/${inner.id}`)).status).toBe(409);
      expect((await call('POST', `/v1/groups/${outer.id}/subgroups/${outer.id}`)).status).toBe(409);
      const cycle = await call<{ error: string }>('POST', `/v1/groups/${inner.id}/subgroups/${outer.id}`);
      expect(cycle.status).toBe(409);
      expect(cycle.body.error).toMatch(/cycle/);
      expect((await call('POST', `/v1/groups/${inner.id}/users/${users.bob ?? ''}`)).status).toBe(409);
      expect((await call('POST', `/v1/groups/${inner.id}/users/${UNKNOWN}`)).status).toBe(404);
      expect((await call('POST', `/v1/groups/${inner.id}/subgroups/${UNKNOWN}`)).status).toBe(404);
      expect((await call('DELETE', `/v1/groups/${inner.id}/users/${users.alice ?? ''}`)).status).toBe(404);
      expect((await call('POST', `/v1/groups/${inner.id}/subgroups/nope`)).status).toBe(400);

      const removed = await call<Group>('DELETE', `/v1/groups/${outer.id}/subgroups/${inner.id}`);
      expect(removed.status).toBe(200);
      expect(removed.body.members).toEqual([]);
      expect(removed.body.transitive_member_count).toBe(0);
      expect((await call('DELETE', `/v1/groups/${outer.id}/subgroups/${inner.id}`)).status).toBe(404);
      expect((await call<Group>('DELETE', `/v1/groups/${inner.id}/users/${users.bob ?? ''}`)).body.members).toEqual([]);
    });

    it('keeps SCIM groups read-only through /v1 (409 naming the provisioner) and lets local groups hold them', async () => {
      const patch = await call<{ error: string }>('PATCH', `/v1/groups/${oktaGroup}`, { body: { description: 'x' } });
      expect(patch.status).toBe(409);
      expect(patch.body.error).toMatch(/okta/);
      expect((await call('POST', `/v1/groups/${oktaGroup}/users/${users.alice ?? ''}`)).status).toBe(409);
      expect((await call('DELETE', `/v1/groups/${oktaGroup}/users/${users.dave ?? ''}`)).status).toBe(409);
      const local = await createGroup('over-idp');
      const nested = await call<Group>('POST', `/v1/groups/${local.id}/subgroups/${oktaGroup}`);
      expect(nested.status).toBe(200);
      expect(nested.body.transitive_member_count).toBe(1);
      const scimGroup = await call<Group>('GET', `/v1/groups/${oktaGroup}`);
      expect(scimGroup.body.source).toBe('scim:okta');
    });

    it('pages direct child groups and transitive users independently, with active and search', async () => {
      const top = await createGroup('paging-top');
      const kids = [await createGroup('paging-b'), await createGroup('paging-a'), await createGroup('paging-c')];
      for (const kid of kids) await call('POST', `/v1/groups/${top.id}/subgroups/${kid.id}`);
      await call('POST', `/v1/groups/${kids[0]?.id ?? ''}/users/${users.alice ?? ''}`);
      await call('POST', `/v1/groups/${kids[1]?.id ?? ''}/users/${users.alice ?? ''}`);
      await call('POST', `/v1/groups/${kids[1]?.id ?? ''}/users/${users.bob ?? ''}`);
      await call('POST', `/v1/groups/${top.id}/users/${users.carol ?? ''}`);

      const first = await call<Members>('GET', `/v1/groups/${top.id}/members?limit=2`, { token: auditor });
      expect(first.status).toBe(200);
      expect(first.body.direct_child_groups.map((group) => group.name)).toEqual(['paging-a', 'paging-b']);
      expect(first.body.transitive_users.map((user) => user.user_name)).toEqual(['alice', 'bob']);
      expect(first.body.prev_groups_cursor).toBeUndefined();
      const second = await call<Members>('GET', `/v1/groups/${top.id}/members?limit=2&groups_cursor=${first.body.next_groups_cursor ?? ''}&users_cursor=${first.body.next_users_cursor ?? ''}`);
      expect(second.body.direct_child_groups.map((group) => group.name)).toEqual(['paging-c']);
      expect(second.body.transitive_users.map((user) => user.user_name)).toEqual(['carol']);
      expect(second.body.next_groups_cursor).toBeUndefined();
      const back = await call<Members>('GET', `/v1/groups/${top.id}/members?limit=2&groups_before=${second.body.prev_groups_cursor ?? ''}`);
      expect(back.body.direct_child_groups.map((group) => group.name)).toEqual(['paging-a', 'paging-b']);

      const active = await call<Members>('GET', `/v1/groups/${top.id}/members?active=false`);
      expect(active.body.transitive_users.map((user) => user.user_name)).toEqual(['carol']);
      const search = await call<Members>('GET', `/v1/groups/${top.id}/members?search=PAGING-B`);
      expect(search.body.direct_child_groups.map((group) => group.name)).toEqual(['paging-b']);
      expect((await call<Members>('GET', `/v1/groups/${top.id}/members?search=BOB`)).body.transitive_users.map((user) => user.user_name)).toEqual(['bob']);

      expect((await call('GET', `/v1/groups/${top.id}/members?users_cursor=${first.body.next_groups_cursor ?? ''}`)).status).toBe(400);
      expect((await call('GET', `/v1/groups/${top.id}/members?groups_cursor=${first.body.next_groups_cursor ?? ''}&groups_before=${first.body.next_groups_cursor ?? ''}`)).status).toBe(400);
      expect((await call('GET', `/v1/groups/${top.id}/members?limit=0`)).status).toBe(400);
    });
  });

  describe('patch and ETags', () => {
    it('changes fields with If-Match; a stale tag is 412 with the current ETag; a descendant does not move it', async () => {
      const group = await createGroup('etag-parent');
      const child = await createGroup('etag-child');
      const read = await call<Group>('GET', `/v1/groups/${group.id}`);
      const etag = String(read.headers.etag);
      const patched = await call<Group>('PATCH', `/v1/groups/${group.id}`, { body: { display_name: 'ETag Parent', description: 'the parent' }, headers: { 'if-match': etag } });
      expect(patched.status).toBe(200);
      expect(patched.body).toMatchObject({ name: 'etag-parent', display_name: 'ETag Parent', description: 'the parent' });
      expect(patched.headers.etag).not.toBe(etag);
      const stale = await call<{ error: string }>('PATCH', `/v1/groups/${group.id}`, { body: { description: 'lost update' }, headers: { 'if-match': etag } });
      expect(stale.status).toBe(412);
      expect(stale.headers.etag).toBe(patched.headers.etag);
      expect((await call('PATCH', `/v1/groups/${group.id}`, { body: { description: 'any' }, headers: { 'if-match': '*' } })).status).toBe(200);
      expect((await call('PATCH', `/v1/groups/${group.id}`, { body: { description: 'none' } })).status).toBe(200);

      const linked = await call<Group>('POST', `/v1/groups/${group.id}/subgroups/${child.id}`);
      const before = String(linked.headers.etag);
      await call('POST', `/v1/groups/${child.id}/users/${users.bob ?? ''}`);
      const after = await call<Group>('GET', `/v1/groups/${group.id}`);
      expect(after.headers.etag).toBe(before);
      expect(after.body.transitive_member_count).toBe(1);
    });

    it('refuses a rename onto another group name (409)', async () => {
      await createGroup('rename-target');
      const group = await createGroup('rename-me');
      expect((await call('PATCH', `/v1/groups/${group.id}`, { body: { name: 'Rename-Target' } })).status).toBe(409);
      expect((await call<Group>('PATCH', `/v1/groups/${group.id}`, { body: { name: 'Rename-Me' } })).body.name).toBe('Rename-Me');
    });
  });

  describe('lists', () => {
    it('filters users exactly ignoring case, by source and active, and searches substrings', async () => {
      const names = async (query: string) => (await call<Page<User>>('GET', `/v1/users?${query}`, { token: auditor })).body.items.map((user) => user.user_name);
      expect(await names('email=alice@EXAMPLE.com')).toEqual(['alice']);
      expect(await names('user_name=BOB')).toEqual(['bob']);
      expect(await names('active=false')).toEqual(['carol']);
      expect(await names('source=scim')).toEqual(['alice', 'bob', 'carol', 'dave']);
      expect(await names('source=scim:okta&search=OTHER.ORG')).toEqual(['dave']);
      expect(await names('source=local')).toEqual([]);
      expect(await names('search=person&active=true')).toEqual(['alice', 'bob', 'dave']);
    });

    it('filters groups by name, display_name, source and search', async () => {
      await createGroup('Filter-Me', { display_name: 'Filtered Group' });
      const names = async (query: string) => (await call<Page<Group>>('GET', `/v1/groups?${query}`)).body.items.map((group) => group.name);
      expect(await names('name=filter-me')).toEqual(['Filter-Me']);
      expect(await names('display_name=FILTERED GROUP')).toEqual(['Filter-Me']);
      expect(await names('source=scim')).toEqual(['okta-engineering']);
      expect(await names('search=filtered')).toEqual(['Filter-Me']);
    });

    it('pages forwards and backwards with keyset cursors and refuses bad paging parameters', async () => {
      const page1 = await call<Page<User>>('GET', '/v1/users?limit=3');
      expect(page1.body.items.map((user) => user.user_name)).toEqual(['alice', 'bob', 'carol']);
      expect(page1.body.prev_cursor).toBeUndefined();
      const page2 = await call<Page<User>>('GET', `/v1/users?limit=3&cursor=${page1.body.next_cursor ?? ''}`);
      expect(page2.body.items.map((user) => user.user_name)).toEqual(['dave']);
      expect(page2.body.next_cursor).toBeUndefined();
      const back = await call<Page<User>>('GET', `/v1/users?limit=3&before=${page2.body.prev_cursor ?? ''}`);
      expect(back.body.items.map((user) => user.user_name)).toEqual(['alice', 'bob', 'carol']);
      expect(back.body.prev_cursor).toBeUndefined();
      expect(back.body.next_cursor).toBeDefined();

      expect((await call('GET', `/v1/users?cursor=${page1.body.next_cursor ?? ''}&before=${page1.body.next_cursor ?? ''}`)).status).toBe(400);
      expect((await call('GET', '/v1/users?cursor=garbage')).status).toBe(400);
      const groups = await call<Page<Group>>('GET', '/v1/groups?limit=1');
      expect((await call('GET', `/v1/users?cursor=${groups.body.next_cursor ?? ''}`)).status).toBe(400);
      for (const limit of ['0', '-1', '1.5', 'ten']) expect((await call('GET', `/v1/users?limit=${limit}`)).status).toBe(400);
      const clamped = await call<Page<User>>('GET', '/v1/users?limit=100000');
      expect(clamped.status).toBe(200);
      expect(clamped.body.items).toHaveLength(4);
    });
  });

  it('tells every replica through the change feed when users or groups change', async () => {
    const seen: string[] = [];
    fixture.platform.changes.subscribe(TOPICS.groups, () => seen.push('groups'));
    fixture.platform.changes.subscribe(TOPICS.users, () => seen.push('users'));
    await fixture.platform.changes.check();
    seen.length = 0;
    await createGroup('announced');
    await fixture.platform.changes.check();
    expect(seen).toEqual(['groups']);
    seen.length = 0;
    await fixture.scimUser('announced-user');
    await fixture.platform.changes.check();
    expect(seen).toEqual(['users']);
  });

  it('audits every write with its actor, before and after', async () => {
    const group = await createGroup('audited');
    await call('PATCH', `/v1/groups/${group.id}`, { token: directoryAdmin, body: { description: 'now audited' } });
    const events = await call<{ events: { action: string; actor: { subject: string }; before: Group | null; after: Group | null }[] }>('GET', `/v1/audit-events?target_id=${group.id}`);
    expect(events.body.events.map((event) => event.action)).toEqual(['group.update', 'group.create']);
    expect(events.body.events[0]?.actor.subject).toBe('dir-admin');
    expect(events.body.events[0]?.before?.description).toBe('');
    expect(events.body.events[0]?.after?.description).toBe('now audited');
    const scimEvents = await call<{ events: { action: string; actor: { subject: string } }[] }>('GET', `/v1/audit-events?target_id=${users.alice ?? ''}`);
    expect(scimEvents.body.events.at(-1)).toMatchObject({ action: 'user.create', actor: { subject: 'scim:okta' } });
  });
});
