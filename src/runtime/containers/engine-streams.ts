/** Stream type bytes of the Engine API's multiplexed attach stream (Tty false). */
export type StreamKind = 'stdout' | 'stderr';

const HEADER_BYTES = 8;

/**
 * Splits the attach stream into its frames: one byte naming the stream (0 stdin, 1 stdout,
 * 2 stderr), three zero bytes, a big-endian 32-bit payload length, then the payload. A frame may
 * arrive over several chunks, and a chunk may carry several frames.
 */
export function createFrameDecoder(onFrame: (kind: StreamKind, payload: Buffer) => void): (chunk: Buffer) => void {
  let pending: Buffer = Buffer.alloc(0);
  return (chunk) => {
    pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
    while (pending.length >= HEADER_BYTES) {
      const size = pending.readUInt32BE(4);
      if (pending.length < HEADER_BYTES + size) return;
      const payload = pending.subarray(HEADER_BYTES, HEADER_BYTES + size);
      // stdin is never echoed back; anything but stderr is the server's stdout
      onFrame(pending[0] === 2 ? 'stderr' : 'stdout', payload);
      pending = pending.subarray(HEADER_BYTES + size);
    }
  };
}

/** One frame as the engine writes it (the fake engine and the tests use it). */
export function encodeFrame(kind: StreamKind, payload: Buffer): Buffer {
  const header = Buffer.alloc(HEADER_BYTES);
  header[0] = kind === 'stderr' ? 2 : 1;
  header.writeUInt32BE(payload.length, 4);
  return Buffer.concat([header, payload]);
}

/** Calls `onLine` with each complete line of a stream of newline-delimited text. */
export function createLineSplitter(onLine: (line: string) => void): { push: (chunk: string) => void; end: () => void } {
  let partial = '';
  return {
    push: (chunk) => {
      const lines = (partial + chunk).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) if (line.trim() !== '') onLine(line);
    },
    end: () => {
      if (partial.trim() !== '') onLine(partial);
      partial = '';
    },
  };
}
