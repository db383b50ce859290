import { access, constants, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { ForbiddenError, InvalidInputError, NotImplementedError } from '../../core/errors.js';
import { withFileLock, writeFileAtomic } from '../state/files.js';
import type { Kind } from './kinds.js';
import type { InstallRecord } from './store.js';
import { isJsonObject } from '../../core/json-object.js';

export const LOCK_FILE = 'toolyard.lock.yaml';

/** One entry of `toolyard.lock.yaml` (clarification point 9); keys this toolyard does not know are kept as they are. */
export interface LockEntry {
  name: string;
  version: string;
  source: string;
  /** Plugins installed by name from a marketplace: where `source` is looked up again on upgrade. */
  marketplace?: string;
  resolvedReference: string;
  digest: string;
  contentDigest: string;
  clients: string[];
  unsigned?: boolean;
  provenance?: Record<string, unknown>;
  [key: string]: unknown;
}

type LockDocument = Record<string, unknown> & { version?: unknown };

function checkEntry(path: string, kind: Kind, entry: unknown, index: number): LockEntry {
  const where = `${path}: ${kind}[${index}]`;
  if (!isJsonObject(entry)) throw new InvalidInputError(`${where} is not a mapping`);
  for (const key of ['name', 'source', 'resolvedReference', 'digest', 'contentDigest']) {
    if (typeof entry[key] !== 'string' || entry[key] === '') throw new InvalidInputError(`${where}: ${key} must be a non-empty string`);
  }
  if (entry.marketplace !== undefined && (typeof entry.marketplace !== 'string' || entry.marketplace === '')) throw new InvalidInputError(`${where}: marketplace must be a non-empty string`);
  const clients = entry.clients;
  if (!Array.isArray(clients) || !clients.every((client) => typeof client === 'string')) throw new InvalidInputError(`${where}: clients must be a list of client names`);
  return { ...entry, version: typeof entry.version === 'string' ? entry.version : '' } as LockEntry;
}

/** The project's lock file: no file is an empty lock. */
export interface Lock {
  path: string;
  document: LockDocument;
  entries: (kind: Kind) => LockEntry[];
}

/**
 * Reads `toolyard.lock.yaml` at the project root. Unparseable YAML or a bad entry is a 400; a
 * `version` other than 1 is a 501 where `strictVersion` (sync and upgrade: a newer format this
 * toolyard cannot apply), a 400 elsewhere.
 */
export async function readLock(projectRoot: string, options: { strictVersion?: boolean } = {}): Promise<Lock> {
  const path = join(projectRoot, LOCK_FILE);
  let text: string | undefined;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EISDIR') throw new InvalidInputError(`${path} is a folder, not a lock file`);
    if (code !== 'ENOENT') throw error;
  }
  let document: unknown = { version: 1 };
  if (text !== undefined) {
    try {
      document = parse(text) ?? { version: 1 };
    } catch (error) {
      throw new InvalidInputError(`${path} is not valid YAML: ${(error as Error).message.split('\n')[0] ?? ''}`);
    }
  }
  if (!isJsonObject(document)) throw new InvalidInputError(`${path} must be a mapping with version, skills and plugins`);
  if (document.version !== 1) {
    const message = `${path} has version ${JSON.stringify(document.version)}; this toolyard reads version 1`;
    throw options.strictVersion === true ? new NotImplementedError(message) : new InvalidInputError(message);
  }
  const entries = new Map<Kind, LockEntry[]>();
  for (const kind of ['skills', 'plugins'] as const) {
    const list = document[kind] ?? [];
    if (!Array.isArray(list)) throw new InvalidInputError(`${path}: ${kind} must be a list`);
    entries.set(
      kind,
      list.map((entry, index) => checkEntry(path, kind, entry, index)),
    );
  }
  return { path, document, entries: (kind) => entries.get(kind) ?? [] };
}

const KNOWN_KEYS = new Set(['name', 'version', 'source', 'marketplace', 'resolvedReference', 'digest', 'contentDigest', 'clients', 'provenance', 'unsigned']);

/** The keys of an entry this toolyard does not write: another tool's, kept through every rewrite. */
const unknownKeys = (entry: LockEntry | undefined): Record<string, unknown> => Object.fromEntries(Object.entries(entry ?? {}).filter(([key]) => !KNOWN_KEYS.has(key)));

/** Writes the kind's entries sorted by name, keeping every key of the file this toolyard does not write. */
export async function writeLock(lock: Lock, kind: Kind, entries: readonly LockEntry[]): Promise<void> {
  const before = new Map(lock.entries(kind).map((entry) => [entry.name, entry]));
  const merged = [...entries].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)).map((entry) => ({ ...unknownKeys(before.get(entry.name)), ...entry }));
  const document = { ...lock.document, version: 1, [kind]: merged };
  try {
    await writeFileAtomic(lock.path, stringify(document), 0o644);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EACCES' || code === 'EPERM' || code === 'EROFS') throw new ForbiddenError(`${lock.path} cannot be written: ${code}`);
    throw error;
  }
}

/**
 * Reads the lock file and writes the kind's entries `change` returns, holding a lock on the file:
 * skills and plugins share it, and the API and the CLI may both be writing.
 */
export function updateLock(projectRoot: string, kind: Kind, change: (entries: LockEntry[]) => LockEntry[]): Promise<void> {
  return withFileLock(join(projectRoot, LOCK_FILE), async () => {
    const lock = await readLock(projectRoot);
    await writeLock(lock, kind, change(lock.entries(kind)));
  });
}

/** Whether the lock file (or, when absent, its folder) can be written: sync refuses up front with 403 otherwise. */
export async function checkLockWritable(lock: Lock, projectRoot: string): Promise<void> {
  const target = await access(lock.path).then(
    () => lock.path,
    () => projectRoot,
  );
  await access(target, constants.W_OK).catch(() => {
    throw new ForbiddenError(`${target} is not writable, so the lock file cannot be kept`);
  });
}

/** The lock entry that pins a record: what a fresh project needs to restore the same files. */
export function toLockEntry(record: InstallRecord): LockEntry {
  return {
    name: record.name,
    version: record.metadata.version,
    source: record.source,
    ...(record.marketplace !== undefined && { marketplace: record.marketplace }),
    resolvedReference: record.reference,
    digest: record.digest,
    contentDigest: record.content_digest,
    clients: record.clients,
    ...(record.provenance === null ? { unsigned: true } : { provenance: provenanceFields(record.provenance) }),
  };
}

const camel = (key: string): string => key.replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase());
const provenanceFields = (provenance: Record<string, unknown>): Record<string, unknown> =>
  Object.fromEntries(Object.entries(provenance).map(([key, value]) => [camel(key), value]));
