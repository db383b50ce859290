import { randomBytes } from 'node:crypto';
import { mkdir, open, readFile, readdir, rename, rm, writeFile, type FileHandle } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import lockfile from 'proper-lockfile';

/**
 * Writes through a temporary file in the same directory and renames it over the target, so a
 * reader sees either the old or the new content, never a torn file, even if the writer dies.
 */
export async function writeFileAtomic(path: string, content: string, mode = 0o600): Promise<void> {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  const temporary = `${path}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    await writeFile(temporary, content, { mode });
    await rename(temporary, path);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}

export async function readJsonFile(path: string): Promise<unknown> {
  try {
    return JSON.parse(await readFile(path, 'utf8')) as unknown;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** Names of the `*.json` files in a directory, without the extension; empty when it does not exist. */
export async function listJsonNames(dir: string): Promise<string[]> {
  try {
    const names = await readdir(dir);
    return names.filter((name) => name.endsWith('.json')).map((name) => name.slice(0, -'.json'.length)).sort();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}

/**
 * Runs `fn` holding an exclusive lock on `path` shared by every process (the API server, the CLI and
 * the supervisors). A lock left by a dead process goes stale after 10 s and is taken over.
 */
export async function withFileLock<T>(path: string, fn: () => Promise<T>): Promise<T> {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  const release = await lockfile.lock(path, {
    realpath: false,
    stale: 10_000,
    retries: { retries: 100, minTimeout: 10, maxTimeout: 100, factor: 1.5 },
  });
  try {
    return await fn();
  } finally {
    await release();
  }
}

export const jsonPath = (dir: string, name: string): string => join(dir, `${name}.json`);

const TAIL_CHUNK = 64 * 1024;

/** The last `count` lines of a file (of its first `end` bytes when given), read backwards so a large log is not loaded whole; '' when absent. */
export async function readLastLines(path: string, count: number, end?: number): Promise<string> {
  let handle: FileHandle;
  try {
    handle = await open(path, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return '';
    throw error;
  }
  try {
    const chunks: Buffer[] = [];
    const size = (await handle.stat()).size;
    let position = end === undefined ? size : Math.min(end, size);
    let newlines = 0;
    while (position > 0 && newlines <= count) {
      const length = Math.min(TAIL_CHUNK, position);
      position -= length;
      const chunk = Buffer.alloc(length);
      await handle.read(chunk, 0, length, position);
      chunks.unshift(chunk);
      for (const byte of chunk) if (byte === 0x0a) newlines++;
    }
    const text = Buffer.concat(chunks).toString('utf8');
    const trailing = text.endsWith('\n');
    const lines = (trailing ? text.slice(0, -1) : text).split('\n');
    const kept = lines.slice(-count).join('\n');
    return kept === '' ? '' : `${kept}${trailing ? '\n' : ''}`;
  } finally {
    await handle.close();
  }
}
