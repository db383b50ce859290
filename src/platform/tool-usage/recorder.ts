/** One tool call as the connector gateway hands it over, the record of PLATFORM-API Part 4 §8 (hashed as `usage`). */
export interface ToolCallUsage {
  billable: boolean;
  billable_reason: 'delivered' | 'denied_by_policy' | 'disabled_by_user' | 'upstream_error' | 'gateway_error';
  call_id: string;
  /** The decision's value, as the contract's §8 says (`category` = `decision`). */
  category: 'allowed' | 'denied';
  connector_id: string;
  connector_name: string;
  decision: 'allowed' | 'denied';
  /** The connector's `updated_at` when the call was served (RFC 3339, milliseconds). */
  definition_version: string;
  environment: string;
  gateway_id: string;
  /** Direct and inherited groups of the caller. */
  groups: { id: string; name: string }[];
  occurred_at: string;
  outcome: 'ok' | 'error';
  tool_name: string;
  user_email: string | null;
  user_id: string;
}

/** Appends tool-call records to their gateway's hash chain; the promise settles once the record is committed. */
export interface ToolUsageRecorder {
  record(usage: ToolCallUsage): Promise<void>;
}
