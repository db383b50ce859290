import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { encodeFrame } from '../../src/runtime/containers/engine-streams.js';

/**
 * A stand-in for the Docker Engine API on a Unix socket, faithful to what the runtime uses: the
 * version prefix, the JSON shapes and status codes (404 no such image or container, 409 conflicts,
 * 304 already started or stopped), the pull progress stream (JSON lines, an error as its last event),
 * the hijacked attach connection with its 8-byte stream framing, and wait that answers its headers at
 * once. A "container" runs its image's command as a child process on this machine, with the
 * create body's Env, so an MCP server in it really talks over the attached stdio or its port.
 */

export interface FakeImage {
  /** The command and leading arguments (the image's Entrypoint), run on this machine. */
  entrypoint: string[];
  /** Default arguments, replaced by the create body's Cmd. */
  cmd?: string[];
  /** Pulling it fails with this message as the stream's last event, as a registry error does (Podman reports an unknown tag so too). */
  pullError?: string;
  /** The registry holds it privately: a pull must carry this login in `X-Registry-Auth`, else it fails as Podman reports it. */
  login?: { username: string; password: string; serveraddress: string };
}

interface Container {
  Id: string;
  Name: string;
  body: Record<string, unknown> & { Image: string; Cmd?: string[]; Env?: string[]; Labels?: Record<string, string>; OpenStdin?: boolean };
  image: string;
  state: 'created' | 'running' | 'exited';
  exitCode: number;
  child?: ChildProcess;
  attached: Duplex[];
  pendingStdin: Buffer[];
  waiters: ((code: number) => void)[];
}

export interface FakeDockerEngine {
  socketPath: string;
  /** Every request: method, path without the version prefix, query, JSON body and `X-Registry-Auth` decoded. */
  requests: { method: string; path: string; query: URLSearchParams; body: unknown; version: string; registryAuth?: unknown }[];
  /** The images the engine can pull, by reference (`name:tag`); tests publish more. */
  registry: Map<string, FakeImage>;
  /** The images the engine has locally, by reference; pulled ones are added. */
  local: Map<string, FakeImage>;
  containers: () => Container[];
  close: () => Promise<void>;
}

const normalize = (reference: string): string => (reference.lastIndexOf(':') > reference.lastIndexOf('/') || reference.includes('@') ? reference : `${reference}:latest`);
const imageId = (reference: string): string => `sha256:${createHash('sha256').update(reference).digest('hex')}`;

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json', 'api-version': '1.41' });
  res.end(status === 204 || status === 304 ? undefined : JSON.stringify(body));
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  return text === '' ? undefined : JSON.parse(text);
}

export async function startFakeDockerEngine(options: { socketPath: string; registry: Record<string, FakeImage>; local?: Record<string, FakeImage> }): Promise<FakeDockerEngine> {
  const registry = new Map(Object.entries(options.registry).map(([reference, image]) => [normalize(reference), image]));
  const local = new Map(Object.entries(options.local ?? {}).map(([reference, image]) => [normalize(reference), image]));
  const containers = new Map<string, Container>();
  const requests: FakeDockerEngine['requests'] = [];
  let nextId = 1;

  const findImage = (reference: string): { reference: string; image: FakeImage } | undefined => {
    for (const [name, image] of local) if (name === normalize(reference) || imageId(name) === reference) return { reference: name, image };
    return undefined;
  };
  const findContainer = (key: string): Container | undefined =>
    containers.get(key) ?? [...containers.values()].find((container) => container.Name === `/${key}` || container.Id.startsWith(key));

  const exited = (container: Container, code: number): void => {
    container.state = 'exited';
    container.exitCode = code;
    for (const socket of container.attached) socket.end();
    container.attached = [];
    for (const waiter of container.waiters.splice(0)) waiter(code);
  };

  const startContainer = (container: Container): void => {
    const found = findImage(container.image);
    const [command = '', ...leading] = found?.image.entrypoint ?? [];
    const args = [...leading, ...(container.body.Cmd ?? found?.image.cmd ?? [])];
    const env: Record<string, string> = { PATH: process.env.PATH ?? '' };
    for (const entry of container.body.Env ?? []) env[entry.slice(0, entry.indexOf('='))] = entry.slice(entry.indexOf('=') + 1);
    const child = spawn(command, args, { env, stdio: ['pipe', 'pipe', 'pipe'] });
    container.child = child;
    container.state = 'running';
    const forward = (kind: 'stdout' | 'stderr') => (chunk: Buffer) => {
      for (const socket of container.attached) socket.write(encodeFrame(kind, chunk));
    };
    child.stdout.on('data', forward('stdout'));
    child.stderr.on('data', forward('stderr'));
    child.stdin.on('error', () => undefined);
    for (const chunk of container.pendingStdin.splice(0)) child.stdin.write(chunk);
    child.once('error', () => exited(container, 127));
    child.once('exit', (code, signal) => exited(container, code ?? (signal === 'SIGKILL' ? 137 : 143)));
  };

  const kill = (container: Container, graceSeconds: number): Promise<void> =>
    new Promise((resolve) => {
      if (container.state !== 'running') return resolve();
      container.waiters.push(() => resolve());
      container.child?.kill('SIGTERM');
      setTimeout(() => container.child?.kill('SIGKILL'), graceSeconds * 1000).unref();
    });

  /** The engines' reading of `X-Registry-Auth`: Go's padded base64url of JSON; `null` when it cannot be read. */
  const registryAuth = (header: string | string[] | undefined): unknown => {
    if (typeof header !== 'string') return undefined;
    try {
      if (header.length % 4 !== 0 || /[+/]/.test(header)) return null;
      return JSON.parse(Buffer.from(header, 'base64url').toString('utf8'));
    } catch {
      return null;
    }
  };

  const pull = (res: ServerResponse, query: URLSearchParams, auth: unknown): void => {
    const from = query.get('fromImage') ?? '';
    const tag = query.get('tag') ?? '';
    const reference = tag === '' ? from : tag.startsWith('sha256:') ? `${from}@${tag}` : `${from}:${tag}`;
    const image = registry.get(normalize(reference));
    if (image === undefined) {
      json(res, 404, { message: `pull access denied for ${from}, repository does not exist or may require 'docker login': denied: requested access to the resource is denied` });
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    const layer = imageId(reference).slice(7, 19);
    const events: object[] = [
      { status: `Pulling from ${from}`, id: tag },
      { status: 'Pulling fs layer', progressDetail: {}, id: layer },
      { status: 'Downloading', progressDetail: { current: 512, total: 1024 }, progress: '[=========================>                         ]     512B/1.024kB', id: layer },
    ];
    const refused = image.login !== undefined && JSON.stringify(auth) !== JSON.stringify(image.login);
    const error = refused ? `initializing source docker://${reference}: reading manifest ${tag} in ${from}: unauthorized: authentication required` : image.pullError;
    if (error !== undefined) events.push({ errorDetail: { message: error }, error });
    else {
      events.push(
        { status: 'Pull complete', progressDetail: {}, id: layer },
        { status: `Digest: ${imageId(reference)}` },
        { status: `Status: Downloaded newer image for ${reference}` },
      );
      local.set(normalize(reference), image);
    }
    // one event per write, as the engine flushes them
    for (const event of events) res.write(`${JSON.stringify(event)}\r\n`);
    res.end();
  };

  const create = (res: ServerResponse, query: URLSearchParams, body: Container['body']): void => {
    const name = query.get('name') ?? `fake_${String(nextId)}`;
    const found = findImage(body.Image);
    if (found === undefined) return json(res, 404, { message: `No such image: ${body.Image}` });
    const taken = [...containers.values()].find((container) => container.Name === `/${name}`);
    if (taken !== undefined) {
      return json(res, 409, { message: `Conflict. The container name "/${name}" is already in use by container "${taken.Id}". You have to remove (or rename) that container to be able to reuse that name.` });
    }
    const Id = createHash('sha256').update(`container-${String(nextId++)}`).digest('hex');
    containers.set(Id, { Id, Name: `/${name}`, body, image: found.reference, state: 'created', exitCode: 0, attached: [], pendingStdin: [], waiters: [] });
    json(res, 201, { Id, Warnings: [] });
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://docker');
    const version = /^\/v(\d+\.\d+)(\/.*)$/.exec(url.pathname);
    const path = version?.[2] ?? url.pathname;
    const body = await readJson(req);
    const auth = registryAuth(req.headers['x-registry-auth']);
    requests.push({ method: req.method ?? '', path, query: url.searchParams, body, version: version?.[1] ?? '', ...(auth !== undefined && auth !== null && { registryAuth: auth }) });
    const method = req.method ?? '';
    if (path === '/_ping') {
      res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8', 'api-version': '1.41' });
      res.end('OK');
      return;
    }
    if (path === '/version') return json(res, 200, { Version: 'fake', ApiVersion: '1.41', MinAPIVersion: '1.12', Os: 'linux', Arch: 'amd64', Components: [{ Name: 'Engine', Version: 'fake' }] });
    if (path === '/images/create' && method === 'POST') {
      if (auth === null) return json(res, 400, { message: `failed to parse "X-Registry-Auth" header for ${url.pathname}: unexpected EOF` });
      return pull(res, url.searchParams, auth);
    }
    const image = /^\/images\/(.+)\/json$/.exec(path);
    if (image !== null && method === 'GET') {
      const found = findImage(decodeURIComponent(image[1] ?? ''));
      if (found === undefined) return json(res, 404, { message: `No such image: ${decodeURIComponent(image[1] ?? '')}` });
      return json(res, 200, { Id: imageId(found.reference), RepoTags: [found.reference], RepoDigests: [], Config: { Entrypoint: found.image.entrypoint, Cmd: found.image.cmd ?? null, Env: [] } });
    }
    if (path === '/containers/create' && method === 'POST') return create(res, url.searchParams, body as Container['body']);
    if (path === '/containers/json' && method === 'GET') {
      const wanted = ((JSON.parse(url.searchParams.get('filters') ?? '{}') as { label?: string[] }).label ?? []).map((label) => label.split('='));
      const all = url.searchParams.get('all') === 'true' || url.searchParams.get('all') === '1';
      const listed = [...containers.values()].filter(
        (container) => (all || container.state === 'running') && wanted.every(([key = '', value]) => container.body.Labels?.[key] === value),
      );
      return json(res, 200, listed.map((container) => ({ Id: container.Id, Names: [container.Name], Image: container.image, State: container.state, Labels: container.body.Labels ?? {} })));
    }
    const action = /^\/containers\/([^/]+)(?:\/(start|stop|wait))?$/.exec(path);
    const container = action === null ? undefined : findContainer(decodeURIComponent(action[1] ?? ''));
    if (action === null) return json(res, 404, { message: 'page not found' });
    if (container === undefined) return json(res, 404, { message: `No such container: ${action[1] ?? ''}` });
    const verb = action[2];
    if (verb === 'start' && method === 'POST') {
      if (container.state === 'running') return json(res, 304, undefined);
      startContainer(container);
      return json(res, 204, undefined);
    }
    if (verb === 'stop' && method === 'POST') {
      if (container.state !== 'running') return json(res, 304, undefined);
      await kill(container, Number(url.searchParams.get('t') ?? '10'));
      return json(res, 204, undefined);
    }
    if (verb === 'wait' && method === 'POST') {
      // the headers go out at once, so a client knows the wait is registered before it starts the container
      res.writeHead(200, { 'content-type': 'application/json' });
      res.flushHeaders();
      const nextExit = url.searchParams.get('condition') === 'next-exit';
      if (!nextExit && container.state === 'exited') return void res.end(JSON.stringify({ StatusCode: container.exitCode, Error: null }));
      container.waiters.push((code) => res.end(JSON.stringify({ StatusCode: code, Error: null })));
      return;
    }
    if (verb === undefined && method === 'DELETE') {
      if (container.state === 'running') {
        const force = url.searchParams.get('force') === 'true' || url.searchParams.get('force') === '1';
        if (!force) return json(res, 409, { message: `cannot remove container "${container.Name}": container is running: stop the container before removing or force remove` });
        await kill(container, 0);
      }
      containers.delete(container.Id);
      return json(res, 204, undefined);
    }
    return json(res, 404, { message: 'page not found' });
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => json(res, 500, { message: (error as Error).message }));
  });
  server.on('upgrade', (req: IncomingMessage, socket: Duplex) => {
    const url = new URL(req.url ?? '/', 'http://docker');
    const match = /^\/v(\d+\.\d+)\/containers\/([^/]+)\/attach$/.exec(url.pathname);
    requests.push({ method: req.method ?? '', path: match === null ? url.pathname : `/containers/${match[2] ?? ''}/attach`, query: url.searchParams, body: undefined, version: match?.[1] ?? '' });
    const container = match === null ? undefined : findContainer(decodeURIComponent(match[2] ?? ''));
    if (container === undefined) {
      socket.end('HTTP/1.1 404 Not Found\r\ncontent-type: application/json\r\nconnection: close\r\n\r\n{"message":"No such container"}');
      return;
    }
    socket.write('HTTP/1.1 101 UPGRADED\r\nContent-Type: application/vnd.docker.raw-stream\r\nConnection: Upgrade\r\nUpgrade: tcp\r\n\r\n');
    container.attached.push(socket);
    // stdin is not framed: the bytes go to the server as they come, and wait in the connection until it starts
    socket.on('data', (chunk: Buffer) => {
      if (container.body.OpenStdin !== true) return;
      if (container.child === undefined) container.pendingStdin.push(chunk);
      else container.child.stdin?.write(chunk);
    });
    socket.on('end', () => container.child?.stdin?.end());
    socket.on('error', () => socket.destroy());
  });
  await new Promise<void>((resolve) => server.listen(options.socketPath, resolve));

  return {
    socketPath: options.socketPath,
    requests,
    registry,
    local,
    containers: () => [...containers.values()],
    close: async () => {
      await Promise.all([...containers.values()].map((container) => kill(container, 0)));
      containers.clear();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
