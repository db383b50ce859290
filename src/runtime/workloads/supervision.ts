import type { StatusRecord } from './schemas.js';

/**
 * Starts and stops the detached supervisor process that owns one workload
 * (`toolyard runtime supervise <name>`). The workload service talks to supervisors only through
 * this interface and the status files they write.
 */
export interface SupervisorControl {
  /** Spawns the supervisor detached and resolves once its status is `running`, or rejects with the reason it failed. */
  start: (name: string) => Promise<void>;
  /** Stops the supervisor (and with it the server) if `record` proves it is still this workload's; waits for it to exit. */
  stop: (name: string, record: StatusRecord | undefined) => Promise<void>;
  /** Whether the supervisor and server recorded in `record` are alive and still this workload's processes. */
  alive: (record: StatusRecord) => Promise<{ supervisor: boolean; server: boolean }>;
}
