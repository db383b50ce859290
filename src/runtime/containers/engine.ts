import { request } from 'node:http';
import type { Duplex } from 'node:stream';
import { UnavailableError } from '../../core/errors.js';
import { createFrameDecoder, createLineSplitter, type StreamKind } from './engine-streams.js';
import { API_VERSION, call, engineError, openRequest, pullFailureStatus, readBody, unreachable, type EngineRequest } from './engine-http.js';

export interface EngineVersion {
  Version: string;
  ApiVersion: string;
  /** Docker names itself `Docker Engine - Community`; Podman puts `Podman Engine` in Components. */
  Components?: { Name: string; Version: string }[];
}

export interface ImageDetails {
  Id: string;
  RepoDigests?: string[];
  Config?: { Cmd?: string[] | null; Entrypoint?: string[] | null; ExposedPorts?: Record<string, object> | null; Env?: string[] | null };
}

export interface ContainerSummary {
  Id: string;
  Names: string[];
  Image: string;
  State: string;
  Labels: Record<string, string>;
}

/** The part of the Engine API's container create body that the runtime sets. */
export interface ContainerCreateBody {
  Image: string;
  Cmd?: string[];
  Env: string[];
  Labels: Record<string, string>;
  AttachStdin: boolean;
  AttachStdout: boolean;
  AttachStderr: boolean;
  OpenStdin: boolean;
  StdinOnce: boolean;
  Tty: false;
  ExposedPorts?: Record<string, object>;
  HostConfig: {
    Binds: string[];
    NetworkMode?: string;
    PortBindings?: Record<string, { HostIp: string; HostPort: string }[]>;
    Privileged: boolean;
    CapDrop: string[];
    SecurityOpt: string[];
    ExtraHosts?: string[];
  };
}

/** A container's attached stdio: what is written goes to its stdin; its output comes back split by stream. */
export interface AttachedContainer {
  stdin: Duplex;
  /** Closes the connection (the container keeps running). */
  close: () => void;
}

export interface EngineClient {
  readonly socketPath: string;
  ping: () => Promise<void>;
  version: () => Promise<EngineVersion>;
  /**
   * Pulls `image`, calling `onProgress` with each step the engine reports (layers, digest, status);
   * `registryAuth` is the `X-Registry-Auth` value for a registry that needs a login.
   */
  pull: (image: string, onProgress: (line: string) => void, registryAuth?: string) => Promise<void>;
  /** Undefined when the engine does not have the image. */
  inspectImage: (image: string) => Promise<ImageDetails | undefined>;
  createContainer: (name: string, body: ContainerCreateBody) => Promise<string>;
  start: (id: string) => Promise<void>;
  attach: (id: string, onOutput: (kind: StreamKind, payload: Buffer) => void, onEnd: () => void) => Promise<AttachedContainer>;
  /**
   * Resolves once the engine watches for the container's next exit (it sends its headers then), with
   * the exit code to come: called before start, it sees even a server that exits at once.
   */
  wait: (id: string) => Promise<{ exited: Promise<number> }>;
  stop: (id: string, graceSeconds: number) => Promise<void>;
  remove: (id: string) => Promise<void>;
  /** Containers, running or not, carrying every one of `labels`. */
  list: (labels: Record<string, string>) => Promise<ContainerSummary[]>;
}

export interface EngineClientOptions {
  socketPath: string;
  /** For calls that answer at once (not pulls, waits or stops). */
  timeoutMs?: number;
}

/** `ghcr.io/acme/x:1.2` → fromImage `ghcr.io/acme/x`, tag `1.2`; a digest goes in tag; no tag means latest, never every tag. */
export function pullParameters(image: string): Record<string, string> {
  const at = image.indexOf('@');
  if (at >= 0) return { fromImage: image.slice(0, at), tag: image.slice(at + 1) };
  const colon = image.lastIndexOf(':');
  if (colon > image.lastIndexOf('/')) return { fromImage: image.slice(0, colon), tag: image.slice(colon + 1) };
  return { fromImage: image, tag: 'latest' };
}

interface PullEvent {
  status?: string;
  id?: string;
  progress?: string;
  error?: string;
  errorDetail?: { message?: string };
}

/** A client of the Docker Engine API (served by Docker and by Podman) over its Unix socket. */
export function createEngineClient(options: EngineClientOptions): EngineClient {
  const { socketPath } = options;
  const quick = options.timeoutMs ?? 30_000;
  // pulls, waits and stops last as long as they last; the caller ends them
  const unbounded = 0;
  const run = <T>(spec: EngineRequest, timeoutMs = quick): Promise<T> => call<T>(socketPath, spec, timeoutMs);
  const id = encodeURIComponent;

  const pull = async (image: string, onProgress: (line: string) => void, registryAuth?: string): Promise<void> => {
    const what = `pull ${image}`;
    const headers = registryAuth === undefined ? undefined : { 'x-registry-auth': registryAuth };
    const response = await openRequest(socketPath, { method: 'POST', path: '/images/create', query: pullParameters(image), what, ...(headers !== undefined && { headers }) }, unbounded);
    const status = response.statusCode ?? 0;
    if (status < 200 || status >= 300) throw engineError(status, await readBody(response), what);
    // A pull that fails half-way still answers 200: its error is the last event of the stream.
    let failure: string | undefined;
    const lines = createLineSplitter((line) => {
      let event: PullEvent;
      try {
        event = JSON.parse(line) as PullEvent;
      } catch {
        return;
      }
      if (event.error !== undefined || event.errorDetail?.message !== undefined) failure = event.errorDetail?.message ?? event.error;
      // byte counts arrive many times a second; the steps are what a log reader wants
      else if (event.status !== undefined && event.progress === undefined) onProgress(event.id === undefined ? event.status : `${event.id}: ${event.status}`);
    });
    response.setEncoding('utf8');
    for await (const chunk of response) lines.push(chunk as string);
    lines.end();
    if (failure !== undefined) throw engineError(pullFailureStatus(failure), JSON.stringify({ message: failure }), what);
  };

  const attach = (containerId: string, onOutput: (kind: StreamKind, payload: Buffer) => void, onEnd: () => void): Promise<AttachedContainer> =>
    new Promise((resolve, reject) => {
      const what = `attach to container ${containerId}`;
      const req = request({
        socketPath,
        method: 'POST',
        path: `/${API_VERSION}/containers/${id(containerId)}/attach?stream=1&stdin=1&stdout=1&stderr=1`,
        // the engine then hands the connection over to the container's stdio
        headers: { host: 'docker', connection: 'Upgrade', upgrade: 'tcp' },
      });
      req.once('upgrade', (_response, socket, head) => {
        const decode = createFrameDecoder(onOutput);
        if (head.length > 0) decode(head);
        socket.on('data', decode);
        socket.once('close', onEnd);
        socket.on('error', () => socket.destroy());
        resolve({ stdin: socket, close: () => socket.destroy() });
      });
      req.once('response', (response) => {
        void readBody(response).then((body) => reject(engineError(response.statusCode ?? 0, body, what)), reject);
      });
      req.once('error', (error) => reject(unreachable(socketPath, error)));
      req.end();
    });

  return {
    socketPath,
    ping: async () => {
      const response = await openRequest(socketPath, { method: 'GET', path: '/_ping', what: 'answer a ping' }, quick);
      const body = await readBody(response);
      if (response.statusCode !== 200) throw new UnavailableError(`the container engine on ${socketPath} is not ready: ${body.trim() || String(response.statusCode)}`);
    },
    version: () => run<EngineVersion>({ method: 'GET', path: '/version', what: 'read the engine version' }),
    pull,
    inspectImage: async (image) => {
      try {
        return await run<ImageDetails>({ method: 'GET', path: `/images/${id(image)}/json`, what: `inspect image ${image}` });
      } catch (error) {
        if ((error as { status?: number }).status === 404) return undefined;
        throw error;
      }
    },
    createContainer: async (name, body) =>
      (await run<{ Id: string }>({ method: 'POST', path: '/containers/create', query: { name }, body, what: `create container ${name}` })).Id,
    start: (containerId) => run({ method: 'POST', path: `/containers/${id(containerId)}/start`, what: `start container ${containerId}`, alsoDone: [304] }),
    attach,
    wait: async (containerId) => {
      const what = `wait for container ${containerId}`;
      const path = `/containers/${id(containerId)}/wait`;
      const response = await openRequest(socketPath, { method: 'POST', path, query: { condition: 'next-exit' }, what }, unbounded);
      const exited = readBody(response).then((body) => {
        const status = response.statusCode ?? 0;
        if (status !== 200) throw engineError(status, body, what);
        return (JSON.parse(body) as { StatusCode: number }).StatusCode;
      });
      return { exited };
    },
    stop: (containerId, graceSeconds) =>
      run(
        { method: 'POST', path: `/containers/${id(containerId)}/stop`, query: { t: String(graceSeconds) }, what: `stop container ${containerId}`, alsoDone: [304] },
        unbounded,
      ),
    remove: (containerId) =>
      run({ method: 'DELETE', path: `/containers/${id(containerId)}`, query: { force: 'true' }, what: `remove container ${containerId}`, alsoDone: [404] }),
    list: (labels) =>
      run<ContainerSummary[]>({
        method: 'GET',
        path: '/containers/json',
        query: { all: 'true', filters: JSON.stringify({ label: Object.entries(labels).map(([key, value]) => `${key}=${value}`) }) },
        what: 'list containers',
      }),
  };
}
