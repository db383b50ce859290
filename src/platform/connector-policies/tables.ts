import type { ColumnType } from 'kysely';

type Timestamp = ColumnType<Date, Date, Date>;

export type PolicyMode = 'structured' | 'document';

export interface ConnectorPoliciesTable {
  connector_id: string;
  mode: PolicyMode;
  /** The text in document mode; null in structured mode, whose text is generated from the groups. */
  document: string | null;
  updated_at: Timestamp;
}

export interface ConnectorPolicyGroupsTable {
  connector_id: string;
  group_id: string;
}

export interface ConnectorPoliciesTables {
  connector_policies: ConnectorPoliciesTable;
  connector_policy_groups: ConnectorPolicyGroupsTable;
}
