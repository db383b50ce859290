import type { GroupRow, UserRow } from '../directory/store.js';
import { versionOf } from '../directory/present.js';
import { SCHEMAS } from './discovery.js';
import { ScimError } from './errors.js';

/*
 * SCIM resources and directory records (PLATFORM-API Part 2 §2.4–2.5). The resource is kept as the
 * identity provider sent it (IdPs compare after reading), less `password`, the read-only attributes
 * and what the server owns (`id`, `meta`).
 */

export type Resource = Record<string, unknown>;

const SERVER_OWNED = new Set(['id', 'meta', 'password', 'groups']);
const GROUP_SERVER_OWNED = new Set(['id', 'meta', 'members']);

/** The attributes of `resource` the server keeps as sent, looked up case-insensitively on read. */
export function storable(resource: Resource, kind: 'User' | 'Group'): Resource {
  const owned = kind === 'User' ? SERVER_OWNED : GROUP_SERVER_OWNED;
  return Object.fromEntries(Object.entries(resource).filter(([key]) => !owned.has(key.toLowerCase())));
}

/** An attribute by name, ignoring case (RFC 7643 §2.1). */
export function attributeOf(resource: Resource, name: string): unknown {
  const key = Object.keys(resource).find((candidate) => candidate.toLowerCase() === name.toLowerCase());
  return key === undefined ? undefined : resource[key];
}

const text = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);

function bool(value: unknown, field: string): boolean {
  if (value === undefined || value === null) return true;
  if (typeof value === 'boolean') return value;
  if (typeof value === 'string' && /^(true|false)$/i.test(value)) return value.toLowerCase() === 'true';
  throw new ScimError(400, `${field}: must be a boolean`, 'invalidValue');
}

/** The `primary` entry of a multi-valued attribute, else one of `type`, else the first. */
function preferred(values: unknown, type: string): string | null {
  if (!Array.isArray(values)) return null;
  const entries = values.filter((entry): entry is Resource => typeof entry === 'object' && entry !== null && typeof (entry as Resource).value === 'string');
  const chosen = entries.find((entry) => entry.primary === true || (typeof entry.primary === 'string' && entry.primary.toLowerCase() === 'true')) ?? entries.find((entry) => entry.type === type) ?? entries[0];
  return chosen ? (chosen.value as string) : null;
}

export interface UserFields {
  user_name: string;
  display_name: string;
  email: string | null;
  photo_url: string | null;
  active: boolean;
  externalId: string | undefined;
}

export function userFields(resource: Resource): UserFields {
  const userName = text(attributeOf(resource, 'userName'));
  if (userName === undefined) throw new ScimError(400, 'userName: required, a non-empty string', 'invalidValue');
  const name = attributeOf(resource, 'name');
  const formatted = typeof name === 'object' && name !== null ? text(attributeOf(name as Resource, 'formatted')) : undefined;
  const externalId = attributeOf(resource, 'externalId');
  if (externalId !== undefined && externalId !== null && typeof externalId !== 'string') throw new ScimError(400, 'externalId: must be a string', 'invalidValue');
  return {
    user_name: userName,
    display_name: text(attributeOf(resource, 'displayName')) ?? formatted ?? userName,
    email: preferred(attributeOf(resource, 'emails'), 'work'),
    photo_url: preferred(attributeOf(resource, 'photos'), 'photo'),
    active: bool(attributeOf(resource, 'active'), 'active'),
    externalId: text(externalId),
  };
}

export interface ScimMember {
  value: string;
  type?: string;
}

export function groupFields(resource: Resource): { displayName: string; externalId: string | null; members: ScimMember[] } {
  const displayName = text(attributeOf(resource, 'displayName'));
  if (displayName === undefined) throw new ScimError(400, 'displayName: required, a non-empty string', 'invalidValue');
  const members = attributeOf(resource, 'members') ?? [];
  if (!Array.isArray(members)) throw new ScimError(400, 'members: must be a list of {value, type}', 'invalidValue');
  return {
    displayName,
    externalId: text(attributeOf(resource, 'externalId')) ?? null,
    members: members.map((member: unknown, index) => {
      const value = typeof member === 'object' && member !== null ? (member as Resource).value : undefined;
      if (typeof value !== 'string') throw new ScimError(400, `members[${index}].value: required, the id of a user or group`, 'invalidValue');
      const type = (member as Resource).type;
      return { value, ...(typeof type === 'string' && { type }) };
    }),
  };
}

const meta = (resourceType: 'User' | 'Group', row: { id: string; revision: number; created_at: Date; updated_at: Date }, base: string) => ({
  resourceType,
  created: row.created_at.toISOString(),
  lastModified: row.updated_at.toISOString(),
  location: `${base}/${resourceType}s/${row.id}`,
  version: `W/"${versionOf(row)}"`,
});

export function userResource(row: UserRow, groups: { id: string; display: string }[], base: string): Resource {
  const stored = row.scim_resource ?? {};
  const schemas = Array.isArray(stored.schemas) ? stored.schemas : [SCHEMAS.user];
  return {
    ...stored,
    schemas,
    id: row.id,
    userName: row.user_name,
    active: row.active,
    groups: groups.map((group) => ({ value: group.id, display: group.display, type: 'direct', $ref: `${base}/Groups/${group.id}` })),
    meta: meta('User', row, base),
  };
}

export function groupResource(row: GroupRow, members: { type: 'user' | 'group'; id: string; display: string }[], base: string): Resource {
  const stored = row.scim_resource ?? {};
  return {
    ...stored,
    schemas: Array.isArray(stored.schemas) ? stored.schemas : [SCHEMAS.group],
    id: row.id,
    displayName: row.display_name,
    members: members.map((member) => ({
      value: member.id,
      display: member.display,
      type: member.type === 'user' ? 'User' : 'Group',
      $ref: `${base}/${member.type === 'user' ? 'Users' : 'Groups'}/${member.id}`,
    })),
    meta: meta('Group', row, base),
  };
}

/** `attributes` / `excludedAttributes` (RFC 7644 §3.4.2.5): `id`, `schemas` and `meta` always stay. */
export function project(resource: Resource, attributes: string[] | undefined, excluded: string[] | undefined): Resource {
  const kept = new Set(['id', 'schemas', 'meta']);
  const names = (list: string[]) => list.map((name) => name.replace(/^urn:ietf:params:scim:schemas:core:2\.0:(User|Group):/i, '').toLowerCase());
  if (attributes && attributes.length > 0) {
    const wanted = names(attributes);
    const top = new Set(wanted.map((name) => name.split('.')[0]));
    const result: Resource = {};
    for (const [key, value] of Object.entries(resource)) {
      const lower = key.toLowerCase();
      if (kept.has(key)) result[key] = value;
      else if (top.has(lower)) {
        const subs = wanted.filter((name) => name.startsWith(`${lower}.`)).map((name) => name.slice(lower.length + 1));
        result[key] = subs.length > 0 && typeof value === 'object' && value !== null && !Array.isArray(value) ? project(value as Resource, subs, undefined) : value;
      }
    }
    return result;
  }
  if (excluded && excluded.length > 0) {
    const dropped = names(excluded);
    return Object.fromEntries(
      Object.entries(resource)
        .filter(([key]) => kept.has(key) || !dropped.includes(key.toLowerCase()))
        .map(([key, value]) => {
          const subs = dropped.filter((name) => name.startsWith(`${key.toLowerCase()}.`)).map((name) => name.slice(key.length + 1));
          if (subs.length === 0 || typeof value !== 'object' || value === null || Array.isArray(value)) return [key, value];
          return [key, Object.fromEntries(Object.entries(value).filter(([sub]) => !subs.includes(sub.toLowerCase())))];
        }),
    );
  }
  return resource;
}

