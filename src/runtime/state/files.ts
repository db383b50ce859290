import { randomBytes } from 'node:crypto';
import { mkdir, open, readFile, readdir, rename, rm, writeFile, type FileHandle } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Static, TSchema } from '@sinclair/typebox';
import { Value, type ValueError } from '@sinclair/typebox/value';
import lockfile from 'proper-lockfile';
// one function per module: the whole of semver is 48 modules, which every CLI verb would load
import valid from 'semver/functions/valid.js';
import gt from 'semver/functions/gt.js';
import { DomainError } from '../../core/errors.js';

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

/**
 * A state file this toolyard cannot use: edited by hand, cut short, or written by a newer toolyard.
 * A conflict with the state on disk rather than a fault of the request, and the message names the
 * file so a person can fix or remove it.
 */
export class BrokenStateFileError extends DomainError {
  constructor(
    readonly file: string,
    readonly problem: string,
  ) {
    super(`${file} cannot be used: ${problem}`, 409);
  }
}

export interface StateFileVersion {
  /** The `schema_version` this toolyard writes; a file with a newer one is refused. */
  current: string;
}

function checkVersion(path: string, data: unknown, version: StateFileVersion): void {
  const given = typeof data === 'object' && data !== null && 'schema_version' in data ? data.schema_version : undefined;
  if (typeof given !== 'string') return;
  if (valid(given) === null) throw new BrokenStateFileError(path, `schema_version "${given}" is not a version`);
  if (gt(given, version.current)) {
    throw new BrokenStateFileError(
      path,
      `it has schema_version ${given}, written by a newer toolyard; this toolyard reads ${version.current} and older: upgrade toolyard`,
    );
  }
}

/**
 * Reads a JSON state file and checks it against its schema (and its schema_version when given), so
 * nothing read from disk is used on trust; undefined when the file does not exist.
 */
export async function readStateFile<T extends TSchema>(path: string, schema: T, version?: StateFileVersion): Promise<Static<T> | undefined> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new BrokenStateFileError(path, `it is not valid JSON (${(error as Error).message})`);
  }
  if (version !== undefined) checkVersion(path, data, version);
  const first = Value.Errors(schema, data).First();
  if (first !== undefined) throw new BrokenStateFileError(path, describe(first));
  return data;
}

/** `servers.0: Expected string`; a choice of constants is spelled out instead of TypeBox's "Expected union value". */
function describe(error: ValueError): string {
  const where = error.path === '' ? 'the file' : error.path.slice(1).replaceAll('/', '.');
  const options = (error.schema as { anyOf?: { const?: unknown }[] }).anyOf ?? [];
  const constants = options.map((option) => option.const).filter((value) => typeof value === 'string');
  return `${where}: ${constants.length > 0 && constants.length === options.length ? `must be one of ${constants.join(', ')}` : error.message}`;
}

/** Reads JSON that is not a state file of ours (caches): the caller checks its shape. */
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
