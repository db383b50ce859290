import { lstat, readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';

/** One entry of a skill or plugin folder, by its path relative to the folder with `/` separators. */
export interface FileEntry {
  path: string;
  kind: 'file' | 'dir' | 'link' | 'other';
  size: number;
  executable: boolean;
}

/** What validation sees of a folder: its entries and the text of the few files the formats define. */
export interface FolderSnapshot {
  /** The folder's own name (a skill's `name` must equal it). */
  folder: string;
  entries: FileEntry[];
  /** Text of a file the formats define (`SKILL.md`, JSON manifests); undefined when absent or not read. */
  text: (path: string) => string | undefined;
}

/**
 * The limits of clarification point 4: an artifact is a folder of plain files a person could review,
 * so links and oversized trees are refused wherever content enters (build, extraction, install).
 */
export const LIMITS = { files: 1_000, fileBytes: 100 * 1024 * 1024, totalBytes: 500 * 1024 * 1024 };

const MIB = 1024 * 1024;

/** The file rules that every folder must pass; an empty list when it does. */
export function fileRuleErrors(entries: readonly FileEntry[]): string[] {
  const errors: string[] = [];
  for (const entry of entries) {
    if (entry.kind === 'link') errors.push(`${entry.path} is a link; only regular files and folders are allowed`);
    else if (entry.kind === 'other') errors.push(`${entry.path} is not a regular file or folder`);
    else if (entry.size > LIMITS.fileBytes) errors.push(`${entry.path} is over ${LIMITS.fileBytes / MIB} MiB`);
  }
  const files = entries.filter((entry) => entry.kind === 'file');
  if (files.length > LIMITS.files) errors.push(`${files.length} files: at most ${LIMITS.files} are allowed`);
  const total = files.reduce((sum, entry) => sum + entry.size, 0);
  if (total > LIMITS.totalBytes) errors.push(`${Math.ceil(total / MIB)} MiB in all: at most ${LIMITS.totalBytes / MIB} MiB are allowed`);
  return errors;
}

export const byBytes = (a: string, b: string): number => Buffer.compare(Buffer.from(a), Buffer.from(b));

/**
 * Every entry under `dir`, sorted by the bytes of the path; links are reported, never followed.
 * `source` leaves out a top-level `.git`: building or validating a checkout means its files, not its history.
 */
export async function walkFolder(dir: string, options: { source?: boolean } = {}): Promise<FileEntry[]> {
  const found: FileEntry[] = [];
  const visit = async (relative: string): Promise<void> => {
    for (const name of await readdir(join(dir, relative))) {
      if (options.source === true && relative === '' && name === '.git') continue;
      const path = relative === '' ? name : `${relative}/${name}`;
      const stats = await lstat(join(dir, path));
      const kind = stats.isSymbolicLink() ? 'link' : stats.isDirectory() ? 'dir' : stats.isFile() ? 'file' : 'other';
      found.push({ path, kind, size: kind === 'file' ? stats.size : 0, executable: kind === 'file' && (stats.mode & 0o111) !== 0 });
      if (kind === 'dir' && found.length <= LIMITS.files * 2) await visit(path);
    }
  };
  await visit('');
  return found.sort((a, b) => byBytes(a.path, b.path));
}

const READ_TEXT_BYTES = 1024 * 1024;
const isDefinedText = (path: string): boolean => path.endsWith('SKILL.md') || path.endsWith('.json');

/** Walks the folder and reads the text of the files validation looks into (small ones only). */
export async function snapshotFolder(dir: string, folder: string): Promise<FolderSnapshot> {
  const entries = await walkFolder(dir, { source: true });
  const texts = new Map<string, string>();
  for (const entry of entries) {
    if (entry.kind === 'file' && entry.size <= READ_TEXT_BYTES && isDefinedText(entry.path)) texts.set(entry.path, await readFile(join(dir, entry.path), 'utf8'));
  }
  return { folder, entries, text: (path) => texts.get(path) };
}
