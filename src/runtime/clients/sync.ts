import { ConflictError, InvalidInputError } from '../../core/errors.js';
import { sameValue, type ConfigFormat, type Entry } from './formats/format.js';
import type { Ownership } from './schemas.js';

export interface SyncPlan {
  /** The entries Toolyard owns once the edit is written. */
  servers: string[];
  created_key: boolean;
  /** Wanted names already taken by an entry the user wrote: left alone. */
  conflicts: string[];
}

/** The file holds something the edit cannot keep as it is (a table added inside an entry of ours): the user's content wins. */
export class UnsafeEditError extends ConflictError {
  constructor(file: string) {
    super(`editing ${file} would have changed entries Toolyard does not own; nothing was written`);
  }
}

/** Parse errors name the file, so the user knows which one to fix. */
export function readEntries(format: ConfigFormat, file: string, text: string): ReturnType<ConfigFormat['read']> {
  try {
    return format.read(text);
  } catch (error) {
    if (error instanceof InvalidInputError) throw new InvalidInputError(`${file}: ${error.message}`);
    throw error;
  }
}

/**
 * The edit that makes the file hold exactly `desired` among the entries Toolyard owns: add the new,
 * rewrite the changed, remove the owned ones no longer wanted. Entries the user wrote are never
 * touched, and the result is parsed back and compared so that a wrong edit is refused, not written.
 */
export function planSync(
  { format, file, text, desired, owned }: { format: ConfigFormat; file: string; text: string; desired: ReadonlyMap<string, Entry>; owned: Ownership },
): { text: string; result: SyncPlan } {
  const current = readEntries(format, file, text);
  const ours = new Set(owned.servers);
  const set = new Map<string, Entry>();
  const servers: string[] = [];
  const conflicts: string[] = [];
  for (const [name, entry] of desired) {
    if (current.entries.has(name) && !ours.has(name)) {
      conflicts.push(name);
      continue;
    }
    servers.push(name);
    if (!sameValue(current.entries.get(name), entry)) set.set(name, entry);
  }
  const remove = owned.servers.filter((name) => !desired.has(name) && current.entries.has(name));
  const createdKey = owned.created_key || (!current.hasContainer && set.size > 0);
  const next = set.size === 0 && remove.length === 0 ? text : format.apply(text, { set, remove, dropEmptyContainer: createdKey });
  const after = readEntries(format, file, next);

  const untouched = [...current.entries].filter(([name]) => !set.has(name) && !remove.includes(name));
  const safe =
    untouched.every(([name, value]) => after.entries.has(name) && sameValue(after.entries.get(name), value)) &&
    [...set].every(([name, entry]) => sameValue(after.entries.get(name), entry)) &&
    remove.every((name) => !after.entries.has(name)) &&
    after.entries.size === untouched.length + set.size;
  if (!safe) throw new UnsafeEditError(file);
  return { text: next, result: { servers, created_key: createdKey && after.hasContainer, conflicts } };
}
