import { Type, type Static, type TSchema } from '@sinclair/typebox';

/*
 * Users and groups of the directory (document "Directory"; PLATFORM-API Part 2 §1). Every field is
 * always present: unset values are null.
 */

const Uuid = Type.String({ format: 'uuid' });
const Timestamp = Type.String({ format: 'date-time' });
const Source = Type.String({ description: '`local` (made through /v1), `jit` (first token) or `scim:<provisioner>`' });
/** No control characters (C0, DEL, C1): names are shown in consoles and logs. */
const NO_CONTROL = '^[^\\u0000-\\u001f\\u007f-\\u009f]*$';

export const UserSchema = Type.Object(
  {
    active: Type.Boolean(),
    created_at: Timestamp,
    display_name: Type.String(),
    email: Type.Union([Type.String(), Type.Null()]),
    id: Uuid,
    photo_url: Type.Union([Type.String(), Type.Null()]),
    source: Source,
    updated_at: Timestamp,
    user_name: Type.String(),
  },
  { $id: 'DirectoryUser', additionalProperties: false },
);
export type User = Static<typeof UserSchema>;

export const GroupMemberSchema = Type.Object(
  { display: Type.String(), id: Uuid, type: Type.Union([Type.Literal('group'), Type.Literal('user')]) },
  { additionalProperties: false },
);
export type GroupMember = Static<typeof GroupMemberSchema>;

export const GroupSchema = Type.Object(
  {
    created_at: Timestamp,
    description: Type.String(),
    display_name: Type.String(),
    id: Uuid,
    members: Type.Array(GroupMemberSchema, { description: 'the first 100 direct members: groups, then users, by name then id' }),
    name: Type.String(),
    source: Source,
    transitive_member_count: Type.Integer({ description: 'distinct users, active or not, in the group or below it' }),
    updated_at: Timestamp,
  },
  { $id: 'DirectoryGroup', additionalProperties: false },
);
export type Group = Static<typeof GroupSchema>;

const Name = Type.String({ minLength: 1, maxLength: 128, pattern: NO_CONTROL });
const DisplayName = Type.String({ maxLength: 256, pattern: NO_CONTROL });
const Description = Type.String({ maxLength: 1024 });

export const CreateGroupBodySchema = Type.Object(
  { name: Name, display_name: Type.Optional(DisplayName), description: Type.Optional(Description) },
  { additionalProperties: false },
);
export type CreateGroupBody = Static<typeof CreateGroupBodySchema>;

export const PatchGroupBodySchema = Type.Object(
  { name: Type.Optional(Name), display_name: Type.Optional(DisplayName), description: Type.Optional(Description) },
  { additionalProperties: false, minProperties: 1 },
);
export type PatchGroupBody = Static<typeof PatchGroupBodySchema>;

export const IdParamsSchema = Type.Object({ id: Uuid }, { additionalProperties: false });
export const GroupChildParamsSchema = Type.Object({ group_id: Uuid, child_id: Uuid }, { additionalProperties: false });
export const GroupUserParamsSchema = Type.Object({ group_id: Uuid, user_id: Uuid }, { additionalProperties: false });

const Limit = Type.Integer({ minimum: 1, description: 'default 50, at most 200 (larger values are clamped)' });
const Cursor = (description: string) => Type.String({ minLength: 1, description });
const paging = {
  cursor: Type.Optional(Cursor('next_cursor of the previous page')),
  before: Type.Optional(Cursor('prev_cursor of the previous page (not with cursor)')),
  limit: Type.Optional(Limit),
};
const Search = Type.Optional(Type.String({ minLength: 1, description: 'case-insensitive substring' }));

export const ListGroupsQuerySchema = Type.Object(
  {
    name: Type.Optional(Type.String({ description: 'exact, case-insensitive' })),
    display_name: Type.Optional(Type.String({ description: 'exact, case-insensitive' })),
    source: Type.Optional(Type.String({ description: '`local`, `jit`, `scim` (every provisioner) or `scim:<provisioner>`' })),
    search: Search,
    ...paging,
  },
  { additionalProperties: false },
);
export type ListGroupsQuery = Static<typeof ListGroupsQuerySchema>;

export const ListUsersQuerySchema = Type.Object(
  {
    email: Type.Optional(Type.String({ description: 'exact, case-insensitive' })),
    user_name: Type.Optional(Type.String({ description: 'exact, case-insensitive' })),
    source: Type.Optional(Type.String({ description: '`local`, `jit`, `scim` (every provisioner) or `scim:<provisioner>`' })),
    active: Type.Optional(Type.Boolean()),
    search: Search,
    ...paging,
  },
  { additionalProperties: false },
);
export type ListUsersQuery = Static<typeof ListUsersQuerySchema>;

export const PageQuerySchema = Type.Object(paging, { additionalProperties: false });
export type PageQuery = Static<typeof PageQuerySchema>;

export const MembersQuerySchema = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1, description: 'per collection; default 50, at most 200 (clamped)' })),
    groups_cursor: Type.Optional(Cursor('next_groups_cursor')),
    groups_before: Type.Optional(Cursor('prev_groups_cursor (not with groups_cursor)')),
    users_cursor: Type.Optional(Cursor('next_users_cursor')),
    users_before: Type.Optional(Cursor('prev_users_cursor (not with users_cursor)')),
    active: Type.Optional(Type.Boolean({ description: 'only active (true) or inactive (false) users' })),
    search: Type.Optional(Type.String({ minLength: 1, description: 'groups: name, display_name; users: display_name, user_name, email' })),
  },
  { additionalProperties: false },
);
export type MembersQuery = Static<typeof MembersQuerySchema>;

const pageOf = <T extends TSchema>(item: T) =>
  Type.Object({ items: Type.Array(item), next_cursor: Type.Optional(Type.String()), prev_cursor: Type.Optional(Type.String()) }, { additionalProperties: false });

export const GroupPageSchema = pageOf(Type.Ref('DirectoryGroup'));
export const UserPageSchema = pageOf(Type.Ref('DirectoryUser'));
export interface Page<T> {
  items: T[];
  next_cursor?: string;
  prev_cursor?: string;
}

export const MembersSchema = Type.Object(
  {
    direct_child_groups: Type.Array(Type.Ref('DirectoryGroup')),
    transitive_users: Type.Array(Type.Ref('DirectoryUser')),
    next_groups_cursor: Type.Optional(Type.String()),
    prev_groups_cursor: Type.Optional(Type.String()),
    next_users_cursor: Type.Optional(Type.String()),
    prev_users_cursor: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
);
export interface Members {
  direct_child_groups: Group[];
  transitive_users: User[];
  next_groups_cursor?: string;
  prev_groups_cursor?: string;
  next_users_cursor?: string;
  prev_users_cursor?: string;
}
