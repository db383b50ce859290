import { request, type IncomingMessage } from 'node:http';
import { ConflictError, DomainError, InvalidInputError, NotFoundError, UnavailableError } from '../../core/errors.js';
import { START_AN_ENGINE } from './endpoint.js';

/** Docker 20.10 and Podman 3+ both serve this version of the API; newer engines still accept it. */
export const API_VERSION = 'v1.41';

export interface EngineRequest {
  method: 'GET' | 'POST' | 'DELETE';
  path: string;
  query?: Record<string, string>;
  body?: unknown;
  /** Extra headers (a pull's `X-Registry-Auth`); they are never part of an error message. */
  headers?: Record<string, string>;
  /** What was being done, for error messages: `pull ghcr.io/acme/x:1`. */
  what: string;
  /** Statuses besides 2xx that mean done (304: already started, already stopped). */
  alsoDone?: number[];
}

const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/** The engine's own `{message}`, or the start of the body when it is not JSON. */
function engineMessage(body: string): string {
  try {
    const parsed = JSON.parse(body) as { message?: unknown };
    if (typeof parsed.message === 'string') return parsed.message;
  } catch {
    // not JSON: plain text errors come from proxies in front of the socket
  }
  return body.trim().slice(0, 300);
}

/** An engine's answer as a domain error whose message says what failed and the engine's reason. */
export function engineError(status: number, body: string, what: string): DomainError {
  const reason = `could not ${what}: ${engineMessage(body) || `the engine answered ${String(status)}`}`;
  if (status === 404) return new NotFoundError(reason);
  if (status === 409) return new ConflictError(reason);
  if (status === 400) return new InvalidInputError(reason);
  if (status === 401 || status === 403) return new InvalidInputError(`${reason} (log in to the image's registry with docker login or podman login)`);
  return new UnavailableError(`the container engine ${reason}`);
}

/**
 * The status a pull failure reported inside the progress stream stands for. Docker answers an
 * unknown image with a 404 before any stream; Podman answers 200 and reports every failure, an
 * unknown tag as much as a registry down, as the stream's error event.
 */
export function pullFailureStatus(message: string): number {
  if (/manifest unknown|name unknown|not found|repository does not exist/i.test(message)) return 404;
  if (/unauthorized|authentication required|requested access to the resource is denied/i.test(message)) return 401;
  return 502;
}

/** A socket that cannot be reached: no engine runs there, or this user may not use it. */
export function unreachable(socketPath: string, error: unknown): DomainError {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'EACCES') {
    return new UnavailableError(`the container engine socket ${socketPath} is not accessible to this user: add the user to the docker group, or use rootless Podman`);
  }
  return new UnavailableError(`no container engine answers on ${socketPath} (${messageOf(error)}): ${START_AN_ENGINE}`);
}

export function queryString(query: Record<string, string> | undefined): string {
  const search = new URLSearchParams(query ?? {}).toString();
  return search === '' ? '' : `?${search}`;
}

/** Opens a request to the engine; resolves with its response (any status) once the headers are in. */
export function openRequest(socketPath: string, spec: EngineRequest, timeoutMs: number): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const payload = spec.body === undefined ? undefined : Buffer.from(JSON.stringify(spec.body));
    const req = request({
      socketPath,
      method: spec.method,
      path: `/${API_VERSION}${spec.path}${queryString(spec.query)}`,
      headers: { host: 'docker', ...spec.headers, ...(payload !== undefined && { 'content-type': 'application/json', 'content-length': String(payload.length) }) },
      timeout: timeoutMs,
    });
    req.once('response', resolve);
    req.once('timeout', () => req.destroy(new Error(`no answer within ${String(Math.round(timeoutMs / 1000))}s`)));
    req.once('error', (error) => reject(unreachable(socketPath, error)));
    req.end(payload);
  });
}

export async function readBody(response: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of response) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** A whole request: the body parsed as JSON on 2xx (undefined when empty), a domain error otherwise. */
export async function call<T>(socketPath: string, spec: EngineRequest, timeoutMs: number): Promise<T> {
  const response = await openRequest(socketPath, spec, timeoutMs);
  const body = await readBody(response);
  const status = response.statusCode ?? 0;
  const done = (status >= 200 && status < 300) || (spec.alsoDone ?? []).includes(status);
  if (!done) throw engineError(status, body, spec.what);
  return (body.trim() === '' ? undefined : JSON.parse(body)) as T;
}
