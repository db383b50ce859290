import { readFile, realpath, stat } from 'node:fs/promises';
import { ConflictError } from '../../core/errors.js';
import { writeFileAtomic } from '../state/files.js';

export interface ConfigFileHooks {
  /** Runs between computing an edit and writing it: lets tests play a user saving the file meanwhile. */
  beforeWrite?: (file: string) => Promise<void>;
}

const ATTEMPTS = 5;

const missing = (error: unknown): boolean => (error as NodeJS.ErrnoException).code === 'ENOENT';

/** The file behind a symbolic link (dotfile managers link these), so the link itself is kept. */
async function target(file: string): Promise<string> {
  try {
    return await realpath(file);
  } catch (error) {
    if (missing(error)) return file;
    throw error;
  }
}

async function readText(file: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    if (missing(error)) return '';
    throw error;
  }
}

async function modeOf(file: string): Promise<number> {
  try {
    return (await stat(file)).mode & 0o777;
  } catch (error) {
    if (missing(error)) return 0o600;
    throw error;
  }
}

export class ConcurrentEditError extends ConflictError {
  constructor(file: string) {
    super(`${file} kept changing while Toolyard was editing it; nothing was written, try again`);
  }
}

/**
 * Reads the file, computes the new text and replaces the file atomically only if it still holds what
 * was read; otherwise starts over from the new content, so a save by the user (who does not take our
 * lock) in the meantime is never overwritten. The caller holds the file lock against other writers.
 * `edit` returns the new text and a result; `commit` runs with the result just before the write (to
 * record it first), and the result of the attempt that was written is returned.
 */
export async function rewriteIfUnchanged<T>(
  file: string,
  edit: (text: string) => { text: string; result: T },
  options: { commit?: (result: T) => Promise<void>; hooks?: ConfigFileHooks } = {},
): Promise<T> {
  const path = await target(file);
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const before = await readText(path);
    const { text, result } = edit(before);
    if (text === before) return result;
    await options.hooks?.beforeWrite?.(path);
    if ((await readText(path)) !== before) continue;
    await options.commit?.(result);
    await writeFileAtomic(path, text, await modeOf(path));
    return result;
  }
  throw new ConcurrentEditError(file);
}
