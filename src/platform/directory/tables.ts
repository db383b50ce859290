import type { ColumnType, Generated } from 'kysely';

type Timestamp = ColumnType<Date, Date, Date>;
type Json<T> = ColumnType<T, string, string>;

/** `local` (made through /v1, the anonymous user), `jit` (first token), or `scim:<provisioner>`. */
export type RecordSource = string;

export interface UsersTable {
  id: string;
  user_name: string;
  display_name: string;
  email: string | null;
  photo_url: string | null;
  active: boolean;
  source: RecordSource;
  scim_resource: Json<Record<string, unknown>> | null;
  revision: Generated<number>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface UserIdentitiesTable {
  issuer: string;
  external_id: string;
  user_id: string;
}

export interface GroupsTable {
  id: string;
  name: string;
  display_name: string;
  description: string;
  source: RecordSource;
  external_id: string | null;
  scim_resource: Json<Record<string, unknown>> | null;
  revision: Generated<number>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface GroupMembersTable {
  group_id: string;
  member_type: 'user' | 'group';
  member_id: string;
  created_at: Timestamp;
}

export interface DirectoryTables {
  users: UsersTable;
  user_identities: UserIdentitiesTable;
  groups: GroupsTable;
  group_members: GroupMembersTable;
}
