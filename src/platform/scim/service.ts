import type { Kysely } from 'kysely';
import type { Clock } from '../../core/clock.js';
import type { ChangeFeed } from '../../core/db/change-feed.js';
import type { Ids } from '../../core/ids.js';
import type { AuditTrail } from '../audit/service.js';
import { TOPICS, type DirectoryHooks } from '../context.js';
import type { PlatformDatabase } from '../db.js';
import { deleteGroupRecord, deleteUserRecord } from '../directory/operations/delete-records.js';
import { presentGroup, presentUser, versionOf } from '../directory/present.js';
import type { GroupRow, UserRow } from '../directory/store.js';
import { matches } from '../directory/service.js';
import type { Actor } from '../identity/actor.js';
import { MAX_RESULTS, SCHEMAS } from './discovery.js';
import { ScimError } from './errors.js';
import { matchesFilter, parseFilter, simpleEquality, type ResourceKind } from './filter.js';
import { groupResource, storable, userResource, type Resource } from './mapping.js';
import { writeGroup } from './operations/write-group.js';
import { writeUser } from './operations/write-user.js';
import { applyPatch, canonicalOperations } from './patch.js';
import type { Provisioner } from './provisioners.js';
import * as store from './store.js';

/** One request's view: the provisioner it authenticated as, its actor (for the audit) and the base URL of its locations. */
export interface ScimScope {
  provisioner: Provisioner;
  actor: Actor;
  base: string;
}

export interface ListQuery {
  filter?: string | undefined;
  startIndex?: number | undefined;
  count?: number | undefined;
}

export interface ListResult {
  totalResults: number;
  startIndex: number;
  resources: Resource[];
}

export interface ScimService {
  list(scope: ScimScope, kind: ResourceKind, query: ListQuery): Promise<ListResult>;
  get(scope: ScimScope, kind: ResourceKind, id: string): Promise<Resource>;
  create(scope: ScimScope, kind: ResourceKind, body: Resource): Promise<Resource>;
  replace(scope: ScimScope, kind: ResourceKind, id: string, body: Resource, ifMatch: string | undefined): Promise<Resource>;
  patch(scope: ScimScope, kind: ResourceKind, id: string, body: unknown, ifMatch: string | undefined): Promise<Resource>;
  remove(scope: ScimScope, kind: ResourceKind, id: string, ifMatch: string | undefined): Promise<void>;
}

export interface ScimServiceOptions {
  db: Kysely<PlatformDatabase>;
  clock: Clock;
  ids: Ids;
  audit: AuditTrail;
  changes: ChangeFeed;
  hooks: DirectoryHooks;
}

const DEFAULT_COUNT = 100;

export function createScimService(options: ScimServiceOptions): ScimService {
  const { db, clock, ids, audit, changes } = options;

  const users = async (executor: Kysely<PlatformDatabase>, rows: UserRow[], base: string) => {
    const groups = await store.directGroupsOf(executor, rows.map((row) => row.id));
    return rows.map((row) => userResource(row, groups.filter((group) => group.user_id === row.id), base));
  };
  const groups = async (executor: Kysely<PlatformDatabase>, rows: GroupRow[], base: string) => {
    const members = await store.membersOf(executor, rows.map((row) => row.id));
    const byGroup = new Map<string, typeof members>();
    for (const member of members) {
      const list = byGroup.get(member.group_id);
      if (list) list.push(member);
      else byGroup.set(member.group_id, [member]);
    }
    return rows.map((row) => groupResource(row, byGroup.get(row.id) ?? [], base));
  };
  const present = async (executor: Kysely<PlatformDatabase>, kind: ResourceKind, row: UserRow | GroupRow, base: string): Promise<Resource> => {
    const [resource] = kind === 'User' ? await users(executor, [row as UserRow], base) : await groups(executor, [row as GroupRow], base);
    if (!resource) throw new Error('no resource presented for one row');
    return resource;
  };

  const find = (executor: Kysely<PlatformDatabase>, scope: ScimScope, kind: ResourceKind, id: string, lock = false) =>
    kind === 'User' ? store.findScimUser(executor, scope.provisioner.source, id, { lock }) : store.findScimGroup(executor, scope.provisioner.source, id, { lock });

  const existing = async (executor: Kysely<PlatformDatabase>, scope: ScimScope, kind: ResourceKind, id: string, ifMatch: string | undefined) => {
    const row = await find(executor, scope, kind, id, true);
    if (!row) throw new ScimError(404, `${kind} ${id} not found`);
    const version = `W/"${versionOf(row)}"`;
    if (ifMatch !== undefined && !matches(ifMatch, version)) throw new ScimError(412, `If-Match: the ${kind} changed since you read it (version ${version})`, undefined, { etag: version });
    return row;
  };

  const record = async (trx: Kysely<PlatformDatabase>, scope: ScimScope, kind: ResourceKind, action: string, id: string, before: unknown, written?: UserRow | GroupRow): Promise<Resource> => {
    const after = written ?? (kind === 'User' ? await store.findScimUser(trx, scope.provisioner.source, id) : await store.findScimGroup(trx, scope.provisioner.source, id));
    const afterRecord = after === undefined ? null : kind === 'User' ? presentUser(after as UserRow) : await presentGroup(trx, after as GroupRow);
    await audit.record(trx, { actor: scope.actor, action, targetType: kind === 'User' ? 'user' : 'group', targetId: id, before, after: afterRecord });
    await changes.publish(trx as never, kind === 'User' ? TOPICS.users : TOPICS.groups);
    if (!after) throw new ScimError(404, `${kind} ${id} not found`);
    // a user just created belongs to no group yet
    return action === 'user.create' ? userResource(after as UserRow, [], scope.base) : present(trx, kind, after, scope.base);
  };

  /** Creates or replaces in one transaction: the write, its audit record and the change notice. */
  const write = (scope: ScimScope, kind: ResourceKind, row: UserRow | GroupRow | undefined, resource: Resource, currentMembers?: { type: 'user' | 'group'; id: string }[]) => async (trx: Kysely<PlatformDatabase>) => {
    const now = clock.now();
    if (kind === 'User') {
      const result = await writeUser(trx, { provisioner: scope.provisioner, existing: row as UserRow | undefined, resource, newId: ids.uuid(), now });
      return record(trx, scope, kind, result.action, result.id, result.before, result.row);
    }
    const before = row ? await presentGroup(trx, row as GroupRow) : null;
    const written = await writeGroup(trx, { provisioner: scope.provisioner, existing: row as GroupRow | undefined, resource, newId: ids.uuid(), now, ...(currentMembers && { currentMembers }) });
    return record(trx, scope, kind, row ? 'group.replace' : 'group.create', written.id, before, written);
  };

  /** The resource a PATCH applies to, and (groups) the direct members it was built from. */
  const currentResource = async (trx: Kysely<PlatformDatabase>, kind: ResourceKind, row: UserRow | GroupRow) => {
    const stored = { schemas: [kind === 'User' ? SCHEMAS.user : SCHEMAS.group], ...(row.scim_resource ?? {}), id: row.id };
    if (kind === 'User') return { resource: { ...stored, userName: (row as UserRow).user_name, active: (row as UserRow).active } };
    const members = await store.membersOf(trx, [row.id]);
    // members as {value} only: IdPs remove and compare by value, without the type this server adds
    return { resource: { ...stored, displayName: (row as GroupRow).display_name, members: members.map((member) => ({ value: member.id })) }, members };
  };

  return {
    async list(scope, kind, query) {
      const filter = query.filter === undefined || query.filter.trim() === '' ? undefined : parseFilter(query.filter, kind);
      const equality = filter && simpleEquality(filter, kind);
      const rows = kind === 'User' ? await store.listScimUsers(db, scope.provisioner.source, equality) : await store.listScimGroups(db, scope.provisioner.source, equality);
      const startIndex = Math.max(1, query.startIndex ?? 1);
      const count = Math.min(Math.max(0, query.count ?? DEFAULT_COUNT), MAX_RESULTS);
      if (!filter || equality) {
        const page = count === 0 ? [] : rows.slice(startIndex - 1, startIndex - 1 + count);
        const resources = kind === 'User' ? await users(db, page as UserRow[], scope.base) : await groups(db, page as GroupRow[], scope.base);
        return { totalResults: rows.length, startIndex, resources };
      }
      const all = kind === 'User' ? await users(db, rows as UserRow[], scope.base) : await groups(db, rows as GroupRow[], scope.base);
      const matching = all.filter((resource) => matchesFilter(filter, resource, kind));
      return { totalResults: matching.length, startIndex, resources: count === 0 ? [] : matching.slice(startIndex - 1, startIndex - 1 + count) };
    },
    async get(scope, kind, id) {
      const row = await find(db, scope, kind, id);
      if (!row) throw new ScimError(404, `${kind} ${id} not found`);
      return present(db, kind, row, scope.base);
    },
    create: (scope, kind, body) => db.transaction().execute(write(scope, kind, undefined, body)),
    replace: (scope, kind, id, body, ifMatch) =>
      db.transaction().execute(async (trx) => {
        const row = await existing(trx, scope, kind, id, ifMatch);
        return write(scope, kind, row, body)(trx);
      }),
    patch: (scope, kind, id, body, ifMatch) => {
      const operations = canonicalOperations(body);
      return db.transaction().execute(async (trx) => {
        const row = await existing(trx, scope, kind, id, ifMatch);
        const current = await currentResource(trx, kind, row);
        const patched = applyPatch(current.resource, operations);
        return write(scope, kind, row, kind === 'User' ? storableUser(patched) : patched, current.members)(trx);
      });
    },
    remove: (scope, kind, id, ifMatch) =>
      db.transaction().execute(async (trx) => {
        const row = await existing(trx, scope, kind, id, ifMatch);
        const before = kind === 'User' ? presentUser(row as UserRow) : await presentGroup(trx, row as GroupRow);
        const now = clock.now();
        if (kind === 'User') await deleteUserRecord(trx, id, { hooks: options.hooks, actor: scope.actor, now });
        else await deleteGroupRecord(trx, id, now);
        await audit.record(trx, { actor: scope.actor, action: kind === 'User' ? 'user.delete' : 'group.delete', targetType: kind === 'User' ? 'user' : 'group', targetId: id, before });
        await changes.publish(trx as never, kind === 'User' ? TOPICS.users : TOPICS.groups);
        // a user leaving groups changes them too
        if (kind === 'User') await changes.publish(trx as never, TOPICS.groups);
      }),
  };
}

/** A patched user keeps what the IdP sent, not the server's read-only additions. */
const storableUser = (resource: Resource): Resource => storable(resource, 'User');
