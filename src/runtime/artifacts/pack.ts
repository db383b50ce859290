import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { gunzip, gzip } from 'node:zlib';
import { InvalidInputError } from '../../core/errors.js';
import { LIMITS, walkFolder } from './folder.js';
import { extractEntries, readTar, writeTar, type TarMember } from './tar.js';

const gzipAsync = promisify(gzip);
const gunzipAsync = promisify(gunzip);

/** One tar+gzip layer of the folder, byte for byte the same for the same content (sorted, no times or owners). */
export async function packFolder(dir: string): Promise<Buffer> {
  const members: TarMember[] = [];
  for (const entry of await walkFolder(dir, { source: true })) {
    if (entry.kind === 'dir') members.push({ path: entry.path, kind: 'dir', executable: true });
    else if (entry.kind === 'file') members.push({ path: entry.path, kind: 'file', executable: entry.executable, content: await readFile(join(dir, entry.path)) });
  }
  return gzipAsync(writeTar(members));
}

/** Unpacks a tar+gzip layer (or a plain tar) into a new folder under `parent`, applying the extraction limits. */
export async function unpackLayer(layer: Buffer, parent: string): Promise<string> {
  const gzipped = layer[0] === 0x1f && layer[1] === 0x8b;
  let tar: Buffer;
  try {
    // the header blocks of 1,000 files on top of 500 MiB of content is the most a valid artifact holds
    tar = gzipped ? await gunzipAsync(layer, { maxOutputLength: LIMITS.totalBytes + (LIMITS.files * 2 + 2) * 1024 }) : layer;
  } catch {
    throw new InvalidInputError('the artifact is not a readable tar+gzip layer, or it is over the 500 MiB limit');
  }
  const entries = readTar(tar);
  const dir = await mkdtemp(join(parent, 'unpack-'));
  try {
    await extractEntries(entries, dir);
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
  return dir;
}
