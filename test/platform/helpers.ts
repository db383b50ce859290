import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Clock } from '../../src/core/clock.js';
import type { TestDatabaseTarget } from '../../src/core/db/database-testing.js';
import type { Ids } from '../../src/core/ids.js';
import { silentLogger } from '../../src/core/telemetry/logger.js';
import { buildPlatformApp, type PlatformApp, type PlatformAppOptions } from '../../src/platform/app.js';
import { PLATFORM_ROLES, parsePlatformConfig, type PlatformConfig } from '../../src/platform/config.js';
import { startOidcProvider, type OidcProvider } from '../helpers/oidc-provider.js';

export interface CallOptions {
  /** A bearer token (a JWT of the test provider, or a key secret at the gateways). */
  token?: string;
  body?: unknown;
  headers?: Record<string, string>;
}

export interface CallResult<T> {
  status: number;
  body: T;
  headers: Record<string, string | string[] | number | undefined>;
  text: string;
}

export interface TestPlatform extends PlatformApp {
  config: PlatformConfig;
  call<T = unknown>(method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE', url: string, options?: CallOptions): Promise<CallResult<T>>;
  dispose(): Promise<void>;
}

/** A validated platform configuration from a plain object, exactly as a YAML file would give it. */
export function platformConfig(document: Record<string, unknown> = {}): PlatformConfig {
  return parsePlatformConfig({ auth: { mode: 'anonymous' }, database: { dataDir: 'memory://' }, ...document });
}

/**
 * The `auth` block for a test provider: each role is granted to tokens whose `roles` claim holds its
 * name, so `provider.mint({sub, claims: {roles: ['billingAdmin']}})` is a billing administrator.
 */
export function oauthWith(provider: OidcProvider, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    mode: 'oauth',
    oauth: { providers: [{ name: 'test', issuerUrl: provider.issuer, audience: provider.audience }], ...extra },
    authz: { roles: Object.fromEntries(PLATFORM_ROLES.map((role) => [role, [{ roles: role }]])) },
  };
}

export async function startTestProvider(): Promise<OidcProvider> {
  return startOidcProvider({ audience: 'toolyard-platform' });
}

/** The real platform app on a fresh database of the given engine (PGlite in memory by default). */
export async function createTestPlatform(
  options: {
    config?: Record<string, unknown>;
    target?: TestDatabaseTarget;
    clock?: Clock;
    ids?: Ids;
    changePollMs?: number;
    extraRoutes?: PlatformAppOptions['extraRoutes'];
    /** Where the app logs (silent by default); tests that check what is logged pass their own. */
    logger?: PlatformAppOptions['logger'];
  } = {},
): Promise<TestPlatform> {
  const created = options.target ? await options.target.create() : undefined;
  const config = platformConfig(options.config);
  const app = await buildPlatformApp({
    config,
    ...(created && { database: created.database as never }),
    logger: options.logger ?? silentLogger,
    jwksCooldownMs: 0,
    ...(options.clock && { clock: options.clock }),
    ...(options.ids && { ids: options.ids }),
    ...(options.changePollMs !== undefined && { changePollMs: options.changePollMs }),
    ...(options.extraRoutes && { extraRoutes: options.extraRoutes }),
  });
  return {
    ...app,
    config,
    async call(method, url, call = {}) {
      const response = await app.http.inject({
        method,
        url,
        headers: { ...(call.token !== undefined && { authorization: `Bearer ${call.token}` }), ...call.headers },
        ...(call.body !== undefined && { payload: call.body as object }),
      });
      const text = response.body;
      let body: unknown = undefined;
      try {
        body = text === '' ? undefined : JSON.parse(text);
      } catch {
        body = text;
      }
      return { status: response.statusCode, body: body as never, headers: response.headers, text };
    },
    async dispose() {
      await app.close();
      await created?.drop();
    },
  };
}

/** Writes `content` to a file in a fresh temporary directory (token files, keys). */
export async function tempFile(name: string, content: string): Promise<string> {
  const directory = await mkdtemp(join(tmpdir(), 'toolyard-platform-'));
  const path = join(directory, name);
  await writeFile(path, content, { mode: 0o600 });
  return path;
}

/**
 * Two (or more) replicas on one PostgreSQL database, the first on `database`, with `more` configuration. Their change-feed poll is
 * slowed to a minute, so what one replica learns of another's writes comes from NOTIFY (and a feature's own poll).
 */
export async function startReplicas(provider: OidcProvider, created: { url?: string; database: unknown }, count = 2, more: Record<string, unknown> = {}): Promise<PlatformApp[]> {
  const replicas: PlatformApp[] = [];
  for (let index = 0; index < count; index++) {
    const config = platformConfig({ auth: oauthWith(provider), database: { url: created.url, maxConnections: 3 }, ...more });
    const app = await buildPlatformApp({ config, ...(index === 0 && { database: created.database as never }), logger: silentLogger, jwksCooldownMs: 0, changePollMs: 60_000 });
    app.start();
    replicas.push(app);
  }
  return replicas;
}
