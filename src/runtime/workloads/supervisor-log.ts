import { createWriteStream, existsSync, fstatSync, mkdirSync, openSync, renameSync, type WriteStream } from 'node:fs';
import { dirname } from 'node:path';

export interface LogFile {
  write: (text: string) => void;
  /** Flushes what was written and closes the file. */
  close: () => Promise<void>;
}

export interface LogFileOptions {
  path: string;
  /** Past this size the file is renamed to `<path>.1` (replacing the older one) and a new one begun. */
  maxBytes: number;
}

/** An append-only log capped at about twice `maxBytes` on disk: the current file plus one rotated file. */
export function createLogFile(options: LogFileOptions): LogFile {
  const { path, maxBytes } = options;
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  let size = 0;
  // Opened synchronously so that the file exists (and can be rotated) from the first write on.
  const open = (): WriteStream => {
    const fd = openSync(path, 'a', 0o600);
    size = fstatSync(fd).size;
    // Logging is best effort: a full disk must not take the workload down with it.
    return createWriteStream(path, { fd }).on('error', () => undefined);
  };
  let stream = open();
  let ended = Promise.resolve();
  let closed = false;

  const end = (old: WriteStream): void => {
    const closed = new Promise<void>((resolve) => old.end(resolve));
    ended = ended.then(() => closed);
  };

  return {
    write: (text) => {
      if (closed) return;
      const bytes = Buffer.byteLength(text);
      if (size > 0 && size + bytes > maxBytes) {
        // The old stream keeps its descriptor across the rename, so its pending writes land in .1.
        // When the file is gone (the workload was removed), reopening simply starts a new one.
        if (existsSync(path)) renameSync(path, `${path}.1`);
        end(stream);
        stream = open();
      }
      stream.write(text);
      size += bytes;
    },
    close: async () => {
      if (!closed) end(stream);
      closed = true;
      await ended;
    },
  };
}

/** The supervisor's and proxy's own lines, one per event, each with an ISO timestamp. */
export function timestamped(log: LogFile, now: () => Date): (line: string) => void {
  return (line) => log.write(`${now().toISOString()} ${line}\n`);
}
