import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { InvalidInputError } from '../../core/errors.js';
import { LIMITS } from './folder.js';

const BLOCK = 512;
const MIB = 1024 * 1024;

/** One member to write: a folder, or a file with its content. */
export interface TarMember {
  path: string;
  kind: 'file' | 'dir';
  executable: boolean;
  content?: Buffer;
}

function octal(value: number, width: number): string {
  return `${value.toString(8).padStart(width - 1, '0')}\0`;
}

function header(path: string, type: string, size: number, mode: number): Buffer {
  const block = Buffer.alloc(BLOCK);
  block.write(path, 0, 100, 'utf8');
  block.write(octal(mode, 8), 100);
  block.write(octal(0, 8), 108);
  block.write(octal(0, 8), 116);
  block.write(octal(size, 12), 124);
  block.write(octal(0, 12), 136);
  block.write(' '.repeat(8), 148);
  block.write(type, 156);
  block.write('ustar\0', 257);
  block.write('00', 263);
  let sum = 0;
  for (const byte of block) sum += byte;
  block.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148);
  return block;
}

const padding = (size: number): Buffer => Buffer.alloc((BLOCK - (size % BLOCK)) % BLOCK);

/** A PAX record holds a path longer than the 100 bytes of the ustar name field. */
function paxPath(path: string): Buffer {
  const body = ` path=${path}\n`;
  let length = Buffer.byteLength(body) + 1;
  while (Buffer.byteLength(`${length}${body}`) !== length) length++;
  const record = Buffer.from(`${length}${body}`);
  return Buffer.concat([header('PaxHeader', 'x', record.length, 0o644), record, padding(record.length)]);
}

/**
 * A reproducible tar: members in the order given (the caller sorts them), times, owners and names
 * of owners zero, modes only 0644/0755, so the same folder always gives the same bytes.
 */
export function writeTar(members: readonly TarMember[]): Buffer {
  const parts: Buffer[] = [];
  for (const member of members) {
    const path = member.kind === 'dir' ? `${member.path}/` : member.path;
    const content = member.content ?? Buffer.alloc(0);
    const mode = member.kind === 'dir' || member.executable ? 0o755 : 0o644;
    if (Buffer.byteLength(path) > 100) parts.push(paxPath(path));
    parts.push(header(path.slice(0, 100), member.kind === 'dir' ? '5' : '0', content.length, mode));
    if (member.kind === 'file') parts.push(content, padding(content.length));
  }
  parts.push(Buffer.alloc(BLOCK * 2));
  return Buffer.concat(parts);
}

const text = (block: Buffer, start: number, length: number): string => {
  const slice = block.subarray(start, start + length);
  const end = slice.indexOf(0);
  return slice.subarray(0, end === -1 ? length : end).toString('utf8');
};

function paxRecords(data: Buffer): Map<string, string> {
  const records = new Map<string, string>();
  let offset = 0;
  while (offset < data.length) {
    const space = data.indexOf(0x20, offset);
    const length = Number.parseInt(data.subarray(offset, space).toString('utf8'), 10);
    if (space === -1 || !Number.isSafeInteger(length) || length <= 0) break;
    const record = data.subarray(space + 1, offset + length - 1).toString('utf8');
    const equals = record.indexOf('=');
    if (equals > 0) records.set(record.slice(0, equals), record.slice(equals + 1));
    offset += length;
  }
  return records;
}

/** `a/./b/` → `a/b`; refused when absolute or climbing out with `..`. */
function safePath(raw: string): string {
  if (raw.startsWith('/')) throw new InvalidInputError(`the artifact holds the absolute path ${raw}; only relative paths are allowed`);
  const parts = raw.split('/').filter((part) => part !== '' && part !== '.');
  if (parts.includes('..')) throw new InvalidInputError(`the artifact holds the path ${raw}, which leaves its folder`);
  return parts.join('/');
}

export interface TarEntry {
  path: string;
  kind: 'file' | 'dir';
  executable: boolean;
  content: Buffer;
}

/**
 * Reads a tar (ustar, PAX and the global header git archive writes), applying the limits of
 * clarification point 4 before anything is written: links, devices, `..`, absolute paths, too many
 * files, a file over 100 MiB or 500 MiB in all are refused.
 */
export function readTar(tar: Buffer, limits: typeof LIMITS = LIMITS): TarEntry[] {
  const entries: TarEntry[] = [];
  let offset = 0;
  let pax = new Map<string, string>();
  let total = 0;
  let files = 0;
  while (offset + BLOCK <= tar.length) {
    const block = tar.subarray(offset, offset + BLOCK);
    if (block.every((byte) => byte === 0)) break;
    const size = Number.parseInt(text(block, 124, 12).trim() || '0', 8);
    if (!Number.isSafeInteger(size) || size < 0) throw new InvalidInputError('the artifact is not a readable tar archive');
    const type = text(block, 156, 1) || '0';
    const data = tar.subarray(offset + BLOCK, offset + BLOCK + size);
    if (data.length < size) throw new InvalidInputError('the artifact is cut short: a member holds less than its header says');
    offset += BLOCK + size + ((BLOCK - (size % BLOCK)) % BLOCK);
    if (type === 'x') {
      pax = paxRecords(data);
      continue;
    }
    if (type === 'g') continue;
    const prefix = text(block, 345, 155);
    const raw = pax.get('path') ?? (prefix === '' ? text(block, 0, 100) : `${prefix}/${text(block, 0, 100)}`);
    pax = new Map();
    if (type === '1' || type === '2') throw new InvalidInputError(`the artifact holds the link ${raw}; only regular files and folders are allowed`);
    if (type !== '0' && type !== '5' && type !== '7') throw new InvalidInputError(`the artifact holds ${raw}, which is not a regular file or folder`);
    const path = safePath(raw);
    if (path === '') continue;
    const kind = type === '5' ? 'dir' : 'file';
    if (kind === 'file') {
      if (size > limits.fileBytes) throw new InvalidInputError(`the artifact's ${path} is over ${limits.fileBytes / MIB} MiB`);
      total += size;
      if (total > limits.totalBytes) throw new InvalidInputError(`the artifact is over ${limits.totalBytes / MIB} MiB in all`);
      if (++files > limits.files) throw new InvalidInputError(`the artifact holds more than ${limits.files} files`);
    }
    const mode = Number.parseInt(text(block, 100, 8).trim() || '0', 8);
    entries.push({ path, kind, executable: kind === 'file' && (mode & 0o111) !== 0, content: kind === 'file' ? Buffer.from(data) : Buffer.alloc(0) });
  }
  return entries;
}

/** Writes the entries under `dir` (which the caller created empty). */
export async function extractEntries(entries: readonly TarEntry[], dir: string): Promise<void> {
  for (const entry of entries) {
    const target = join(dir, entry.path);
    if (entry.kind === 'dir') await mkdir(target, { recursive: true });
    else {
      await mkdir(join(target, '..'), { recursive: true });
      await writeFile(target, entry.content, { mode: entry.executable ? 0o755 : 0o644 });
    }
  }
}
