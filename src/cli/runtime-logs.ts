import { open, stat } from 'node:fs/promises';
import { readLastLines } from '../runtime/state/files.js';
import { openRuntime } from './runtime-context.js';

const POLL_MS = 250;
const LOG_LINES = 1000;
const CHUNK_BYTES = 1024 * 1024;

/** Prints the last lines, then with `follow` whatever is appended, until Ctrl-C. */
export async function logs(name: string, options: { proxy: boolean; follow: boolean }): Promise<void> {
  const { workloads, store } = openRuntime();
  const kind = options.proxy ? 'proxy' : 'server';
  if (!options.follow) {
    process.stdout.write(await workloads.logs(name, kind));
    return;
  }
  await workloads.status(name);
  const path = store.logPath(name, kind);
  // Following starts exactly where the printed tail ends, so no line is lost or printed twice.
  let offset = await sizeOf(path);
  process.stdout.write(await readLastLines(path, LOG_LINES, offset));
  const stopped = new Promise<void>((resolve) => process.once('SIGINT', () => resolve()));
  let fail: (error: unknown) => void = () => undefined;
  const failed = new Promise<never>((_resolve, reject) => (fail = reject));
  let timer: NodeJS.Timeout | undefined;
  const tick = async (): Promise<void> => {
    const size = await sizeOf(path);
    // a rotated or recreated file starts over
    if (size < offset) offset = 0;
    if (size > offset) offset += await copy(path, offset, Math.min(size, offset + CHUNK_BYTES));
    timer = setTimeout(() => void tick().catch(fail), POLL_MS);
  };
  try {
    await tick();
    await Promise.race([stopped, failed]);
  } finally {
    clearTimeout(timer);
  }
}

async function sizeOf(path: string): Promise<number> {
  try {
    return (await stat(path)).size;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw error;
  }
}

async function copy(path: string, from: number, to: number): Promise<number> {
  const file = await open(path, 'r');
  try {
    const buffer = Buffer.alloc(to - from);
    const { bytesRead } = await file.read(buffer, 0, buffer.length, from);
    process.stdout.write(buffer.subarray(0, bytesRead));
    return bytesRead;
  } finally {
    await file.close();
  }
}
