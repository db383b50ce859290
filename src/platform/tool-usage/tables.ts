import type { ColumnType } from 'kysely';
import type { ToolCallUsage } from './recorder.js';

type Timestamp = ColumnType<Date, Date, Date>;
/** bigint columns: read as numbers (both engines), written as numbers. */
type Count = ColumnType<number, number, number>;

export interface ToolUsageChainsTable {
  chain_id: string;
  head_sequence: Count;
  head_hash: string;
  /** When the head record was appended: a head unsigned for `toolUsage.checkpointInterval` gets a checkpoint. */
  head_at: Timestamp;
  signed_sequence: Count;
}

export interface ToolUsageRecordsTable {
  id: string;
  chain_id: string;
  sequence: Count;
  prev_hash: string;
  record_hash: string;
  usage: ColumnType<ToolCallUsage, string, never>;
  occurred_at: Timestamp;
  environment: string;
  connector_id: string;
  connector_name: string;
  tool_name: string;
  user_id: string;
  decision: string;
  outcome: string;
}

export interface ToolUsageCheckpointsTable {
  chain_id: string;
  sequence: Count;
  chain_hash: string;
  hash_alg: string;
  sig_alg: string;
  key_id: string;
  signed_at: Timestamp;
  signature: string;
}

interface RollUp {
  chain_id: string;
  width: number;
  bucket_start: Timestamp;
  environment: string;
  count: Count;
}

export interface ToolUsageCountsTable extends RollUp {
  connector_id: string;
  tool_name: string;
  decision: string;
  connector_name: string;
}

export interface ToolUsageSeriesTable extends RollUp {
  dimension: 'none' | 'decision' | 'connector' | 'tool';
  key: string;
}

export interface ToolUsageUserCountsTable extends RollUp {
  user_id: string;
}

export interface ToolUsageGroupCountsTable extends RollUp {
  connector_id: string;
  group_id: string;
  group_name: string;
}

/** How far each chain's records are in its roll-ups (the reads count the records past it). */
export interface ToolUsageFoldsTable {
  chain_id: string;
  folded_sequence: Count;
}

export interface ToolUsageTables {
  tool_usage_chains: ToolUsageChainsTable;
  tool_usage_records: ToolUsageRecordsTable;
  tool_usage_checkpoints: ToolUsageCheckpointsTable;
  tool_usage_counts: ToolUsageCountsTable;
  tool_usage_series: ToolUsageSeriesTable;
  tool_usage_user_counts: ToolUsageUserCountsTable;
  tool_usage_group_counts: ToolUsageGroupCountsTable;
  tool_usage_folds: ToolUsageFoldsTable;
}
