import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { byBytes, walkFolder } from './folder.js';

export const sha256 = (data: Buffer | string): string => `sha256:${createHash('sha256').update(data).digest('hex')}`;

/**
 * The content digest of an installed folder (ToolHive's definition, so two tools agree on it): per
 * regular file, sorted by the bytes of its relative path, `path \0 sha256(content) \n` into one
 * SHA-256. Modes and times are ignored, so a copy on another machine hashes the same.
 */
export async function contentDigest(dir: string): Promise<string> {
  const files = (await walkFolder(dir)).filter((entry) => entry.kind === 'file').sort((a, b) => byBytes(a.path, b.path));
  const hash = createHash('sha256');
  for (const file of files) {
    hash.update(file.path);
    hash.update('\0');
    hash.update(createHash('sha256').update(await readFile(join(dir, file.path))).digest());
    hash.update('\n');
  }
  return `sha256:${hash.digest('hex')}`;
}
