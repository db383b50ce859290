import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Clock } from '../../core/clock.js';
import { systemClock } from '../../core/clock.js';
import { createHttpApp, type HttpApp } from '../../core/http/app.js';
import { silentLogger } from '../../core/telemetry/logger.js';
import { runtimePaths, type RuntimePaths } from '../paths.js';
import { registerRegistryRoutes } from './routes.js';
import { createRegistryService, type RegistryService } from './service.js';
import { SHIPPED_CATALOG_PATH } from './shipped.js';

export interface RegistryTestApp {
  app: HttpApp;
  registry: RegistryService;
  paths: RuntimePaths;
  /** A temporary directory for the test's own files. */
  dir: string;
  /** Another service on the same directories, as a restarted runtime would have. */
  restart: () => Promise<RegistryTestApp>;
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters -- callers name the body type they expect
  call: <T = Record<string, unknown>>(method: 'GET' | 'PUT' | 'POST', url: string, payload?: object) => Promise<{ status: number; body: T }>;
}

/** The registry routes alone on a bare app, over temporary XDG directories. */
export async function registryTestApp(options: { clock?: Clock; fetchTimeoutMs?: number; dir?: string } = {}): Promise<RegistryTestApp> {
  const dir = options.dir ?? (await mkdtemp(join(tmpdir(), 'toolyard-registry-')));
  const paths = runtimePaths({ XDG_STATE_HOME: join(dir, 'state'), XDG_DATA_HOME: join(dir, 'data'), XDG_CACHE_HOME: join(dir, 'cache'), XDG_CONFIG_HOME: join(dir, 'config') }, dir);
  const registry = createRegistryService({
    paths,
    clock: options.clock ?? systemClock,
    logger: silentLogger,
    shippedCatalogPath: SHIPPED_CATALOG_PATH,
    ...(options.fetchTimeoutMs !== undefined && { fetchTimeoutMs: options.fetchTimeoutMs }),
  });
  const app = createHttpApp({ logger: silentLogger });
  registerRegistryRoutes(app, { registry });
  await app.ready();
  return {
    app,
    registry,
    paths,
    dir,
    restart: () => registryTestApp({ ...options, dir }),
    call: async (method, url, payload) => {
      const response = await app.inject({ method, url, ...(payload !== undefined && { payload }) });
      return { status: response.statusCode, body: (response.body === '' ? undefined : JSON.parse(response.body)) as never };
    },
  };
}

export interface TestHttpServer {
  url: string;
  /** Requests answered so far, by path with query. */
  requests: string[];
  close: () => Promise<void>;
}

/** A plain node:http server on a loopback port, answering with `handler`. */
export async function startHttpServer(handler: (request: IncomingMessage, response: ServerResponse) => void): Promise<TestHttpServer> {
  const requests: string[] = [];
  const server = createServer((request, response) => {
    requests.push(request.url ?? '');
    handler(request, response);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${String(port)}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export const sendJson = (response: ServerResponse, body: unknown, status = 200): void => {
  response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
};
