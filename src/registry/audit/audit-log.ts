import { closeSync, openSync, writeSync } from 'node:fs';
import type { Clock } from '../../core/clock.js';
import type { AuditRecord } from './events.js';

export type AuditEntry = Omit<AuditRecord, 'time'>;

/** Where audit records go: one JSON object a line. */
export interface AuditLog {
  record(entry: AuditEntry): void;
  close(): void;
}

export interface AuditLogOptions {
  /** Appended to (created 0600 when absent); stdout when undefined. */
  file?: string | undefined;
  clock: Clock;
  /** Where stdout records go instead of process.stdout (tests). */
  stdout?: (line: string) => void;
}

const MAX_FIELD = 512;

/**
 * A writer of its own rather than a pino child: the records keep exactly the documented fields, in
 * order, with no level or pid to strip. Lines are written synchronously in one call each (O_APPEND
 * for a file), so no record is lost on a crash and none is split by another writer of the same stream.
 */
export function createAuditLog(options: AuditLogOptions): AuditLog {
  const fd = options.file === undefined ? undefined : openSync(options.file, 'a', 0o600);
  const write = fd !== undefined ? (line: string) => writeSync(fd, line) : (options.stdout ?? ((line: string) => process.stdout.write(line)));
  let closed = false;
  return {
    record(entry) {
      if (closed) return;
      const record: AuditRecord = { time: options.clock.now().toISOString(), ...entry };
      write(`${JSON.stringify(record, (_key, value: unknown) => (typeof value === 'string' && value.length > MAX_FIELD ? `${value.slice(0, MAX_FIELD)}…` : value))}\n`);
    },
    close() {
      if (closed) return;
      closed = true;
      if (fd !== undefined) closeSync(fd);
    },
  };
}

/** Audit off: every record is dropped. */
export const noAuditLog: AuditLog = { record: () => undefined, close: () => undefined };
