import { expect } from 'vitest';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LookupFunction } from 'node:net';
import { fileURLToPath } from 'node:url';
import type { Fetch } from '../../src/core/net/address-guard.js';
import type { Clock } from '../../src/core/clock.js';
import type { TestDatabaseTarget } from '../../src/core/db/database-testing.js';
import { silentLogger } from '../../src/core/telemetry/logger.js';
import { buildRegistryApp, type RegistryApp } from '../../src/registry/app.js';
import { parseRegistryConfig, type RegistryConfig } from '../../src/registry/config.js';

/**
 * Lets sources created through the API read what the tests prepare: files and git repositories in the
 * temporary directory or the repository, and HTTP servers on this machine. Tests of the sourceAccess
 * rules themselves pass their own block.
 */
export const TEST_SOURCE_ACCESS = {
  filePaths: [tmpdir(), fileURLToPath(new URL('../..', import.meta.url))],
  privateNetworks: true,
  gitSchemes: ['https', 'http', 'ssh', 'git', 'file'],
};

/** A validated registry configuration from a plain object, exactly as a YAML file would give it. */
export function registryConfig(document: Record<string, unknown> = {}): RegistryConfig {
  return parseRegistryConfig({ auth: { mode: 'anonymous' }, sourceAccess: TEST_SOURCE_ACCESS, ...document });
}

export interface TestRegistry extends RegistryApp {
  /** Runs every due sync to its end. */
  syncNow(): Promise<void>;
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters -- callers name the body type they expect
  get<T = unknown>(url: string): Promise<{ status: number; body: T; headers: Record<string, unknown> }>;
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters -- callers name the body type they expect
  send<T = unknown>(method: 'POST' | 'PUT' | 'DELETE' | 'PATCH', url: string, payload?: unknown): Promise<{ status: number; body: T }>;
  dispose(): Promise<void>;
}

/**
 * The real registry app on a fresh database of the given engine (PGlite in memory by default), with
 * background work off so tests decide when syncs run.
 */
export async function createTestRegistry(
  options: { config?: Record<string, unknown>; target?: TestDatabaseTarget; clock?: Clock; lookup?: LookupFunction; fetch?: Fetch } = {},
): Promise<TestRegistry> {
  const created = options.target ? await options.target.create() : undefined;
  const app = await buildRegistryApp({
    config: registryConfig({ database: { dataDir: 'memory://' }, ...options.config }),
    ...(created && { database: created.database as never }),
    logger: silentLogger,
    env: process.env,
    backgroundSync: false,
    providerOptions: { httpBackoffMs: 5, ...(options.fetch && { fetch: options.fetch }) },
    ...(options.clock && { clock: options.clock }),
    ...(options.lookup && { lookup: options.lookup }),
  });
  const parse = (text: string): unknown => (text === '' ? undefined : JSON.parse(text));
  return {
    ...app,
    async syncNow() {
      // one round syncs at most sync.concurrency sources: go on until nothing is due
      while ((await app.scheduler.runDue()).size > 0);
    },
    async get(url) {
      const response = await app.http.inject({ method: 'GET', url });
      return { status: response.statusCode, body: parse(response.body) as never, headers: response.headers };
    },
    async send(method, url, payload) {
      const response = await app.http.inject({ method, url, ...(payload !== undefined && { payload: payload as object }) });
      return { status: response.statusCode, body: parse(response.body) as never };
    },
    async dispose() {
      await app.close();
      await created?.drop();
    },
  };
}

/** Writes a catalog document to a temporary file for a `file` source of a test configuration. */
export async function catalogFile(document: unknown): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'toolyard-catalog-'));
  const path = join(dir, 'catalog.json');
  await writeFile(path, JSON.stringify(document));
  return path;
}

export const MCP_INSIGHTS = new URL('../fixtures/mcp-insights-servers.json', import.meta.url).pathname;
export const UPSTREAM_EXAMPLE = new URL('../fixtures/toolhive-registry-server-upstream-registry.json', import.meta.url).pathname;
export const EXAMPLE_CATALOG = new URL('../../examples/catalog.json', import.meta.url).pathname;

/** A managed source to publish into, ahead of the example catalog, as `npm start` runs them. */
export const INTERNAL_AND_EXAMPLES = [
  { name: 'internal', managed: {} },
  { name: 'examples', file: { path: EXAMPLE_CATALOG } },
];

/** No request of a suite may end in a 5xx: the app's own request counter says whether one did. */
export async function expectNoServerErrors(app: TestRegistry): Promise<void> {
  const metrics = await app.http.inject({ method: 'GET', url: '/metrics' });
  expect(metrics.body).not.toMatch(/toolyard_http_requests_total\{[^}]*status="5\d\d"/);
}
