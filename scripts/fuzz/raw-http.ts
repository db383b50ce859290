import { connect } from 'node:net';

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** What came back for bytes written on a fresh connection. */
export type RawOutcome =
  | { kind: 'answer'; response: RawResponse }
  /** The server closed (or reset) the connection without a complete answer. */
  | { kind: 'no-answer'; detail: string };

interface Parsed {
  response: RawResponse;
  complete: boolean;
}

function dechunk(data: Buffer): Buffer | undefined {
  const parts: Buffer[] = [];
  let offset = 0;
  for (;;) {
    const lineEnd = data.indexOf('\r\n', offset);
    if (lineEnd < 0) return undefined;
    const size = Number.parseInt(data.subarray(offset, lineEnd).toString('latin1').split(';')[0] ?? '', 16);
    if (Number.isNaN(size)) return undefined;
    if (size === 0) return Buffer.concat(parts);
    const start = lineEnd + 2;
    if (data.length < start + size + 2) return undefined;
    parts.push(data.subarray(start, start + size));
    offset = start + size + 2;
  }
}

/** Reads one response from what arrived so far, after any 1xx interim answers. */
function parseResponse(data: Buffer, closed: boolean, bodiless: boolean): Parsed | undefined {
  let rest = data;
  for (;;) {
    const headEnd = rest.indexOf('\r\n\r\n');
    if (headEnd < 0) return undefined;
    const [statusLine = '', ...lines] = rest.subarray(0, headEnd).toString('latin1').split('\r\n');
    const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1]);
    if (Number.isNaN(status)) return undefined;
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const colon = line.indexOf(':');
      if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    const after = rest.subarray(headEnd + 4);
    if (status >= 100 && status < 200) {
      rest = after;
      continue;
    }
    const answer = (body: Buffer, complete: boolean): Parsed => ({ response: { status, headers, body: body.toString('utf8') }, complete });
    if (bodiless || status === 204 || status === 304) return answer(Buffer.alloc(0), true);
    if (headers['transfer-encoding']?.toLowerCase() === 'chunked') {
      const body = dechunk(after);
      return body ? answer(body, true) : closed ? answer(after, false) : undefined;
    }
    const length = headers['content-length'];
    if (length !== undefined) {
      const expected = Number(length);
      if (after.length >= expected) return answer(after.subarray(0, expected), true);
      return closed ? answer(after, false) : undefined;
    }
    return closed ? answer(after, true) : undefined;
  }
}

const WRITE_CHUNK = 64 * 1024;

/**
 * Writes `payload` as it is on a new TCP connection and reads one HTTP response, so that requests no
 * HTTP client would send (bad bytes, odd methods, wrong lengths) can be tried. `head`: the request
 * was a HEAD, whose answer has no body whatever its headers say.
 */
export function sendRaw(port: number, payload: Buffer, options: { timeoutMs?: number; head?: boolean } = {}): Promise<RawOutcome> {
  return new Promise((resolve) => {
    const socket = connect({ port, host: '127.0.0.1' });
    let received = Buffer.alloc(0);
    let settled = false;
    const settle = (outcome: RawOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(outcome);
    };
    const timer = setTimeout(() => {
      const parsed = parseResponse(received, true, options.head ?? false);
      settle(parsed ? { kind: 'answer', response: parsed.response } : { kind: 'no-answer', detail: `no answer within ${String(options.timeoutMs ?? 10_000)} ms` });
    }, options.timeoutMs ?? 10_000);
    socket.on('connect', () => void writeUntilAnswered());
    // RFC 9112 9.5: a client sending a body watches for an early answer and stops sending when one comes
    const writeUntilAnswered = async () => {
      for (let offset = 0; offset < payload.length && received.length === 0 && !settled; offset += WRITE_CHUNK) {
        if (!socket.write(payload.subarray(offset, offset + WRITE_CHUNK))) await new Promise((next) => socket.once('drain', next).once('close', next));
      }
    };
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      const parsed = parseResponse(received, false, options.head ?? false);
      if (parsed?.complete) settle({ kind: 'answer', response: parsed.response });
    });
    const finish = (reason: string) => {
      const parsed = parseResponse(received, true, options.head ?? false);
      if (parsed?.complete) settle({ kind: 'answer', response: parsed.response });
      else settle({ kind: 'no-answer', detail: received.length === 0 ? `connection ${reason} with no bytes` : `connection ${reason} after ${String(received.length)} bytes of an incomplete answer` });
    };
    socket.on('end', () => finish('closed'));
    socket.on('error', (error: NodeJS.ErrnoException) => finish(`failed (${error.code ?? error.message})`));
  });
}

/** Whether a body is the contract's error shape: a JSON object with exactly one key, `error`, a non-empty string. */
export function isErrorShape(response: RawResponse): boolean {
  if (!/^application\/json/.test(response.headers['content-type'] ?? '')) return false;
  try {
    const body = JSON.parse(response.body) as unknown;
    return typeof body === 'object' && body !== null && Object.keys(body).length === 1 && typeof (body as { error?: unknown }).error === 'string' && (body as { error: string }).error !== '';
  } catch {
    return false;
  }
}
