import type { Static } from '@sinclair/typebox';
import type { ToolCallUsageSchema } from './schemas.js';

/** One tool call as the connector gateway hands it over, the record of PLATFORM-API Part 4 §8 (hashed as `usage`). */
export type ToolCallUsage = Static<typeof ToolCallUsageSchema>;

/** Appends tool-call records to their gateway's hash chain; the promise settles once the record is committed. */
export interface ToolUsageRecorder {
  record(usage: ToolCallUsage): Promise<void>;
}
