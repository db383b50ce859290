import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { runtimePaths } from '../paths.js';
import { RUN_CONFIG_SCHEMA_VERSION, type RunConfig } from './schemas.js';
import { createWorkloadStore, type WorkloadStore } from './store.js';
export { freePort } from '../../core/net/free-port.js';

/** Test helpers for the supervisor and its launcher: temporary XDG directories and run configurations. */

const require = createRequire(import.meta.url);
export const everythingEntry = require.resolve('@modelcontextprotocol/server-everything/dist/index.js');

/**
 * Run from the sources, the launcher starts `supervisor-main.ts`: node loads it with tsx when the
 * supervisor's environment carries this (and so does any node process a test starts from sources).
 */
export const SOURCES_NODE_OPTIONS = `--import=${pathToFileURL(require.resolve('tsx')).href}`;

export interface TempRuntime {
  /** This process's environment with XDG directories under a temporary directory. */
  env: Record<string, string | undefined>;
  store: WorkloadStore;
  cleanup: () => Promise<void>;
}

export async function tempRuntime(): Promise<TempRuntime> {
  const root = await mkdtemp(join(tmpdir(), 'toolyard-supervisor-'));
  const env = {
    ...process.env,
    NODE_OPTIONS: SOURCES_NODE_OPTIONS,
    XDG_STATE_HOME: join(root, 'state'),
    XDG_DATA_HOME: join(root, 'data'),
    XDG_CACHE_HOME: join(root, 'cache'),
    XDG_CONFIG_HOME: join(root, 'config'),
  };
  return { env, store: createWorkloadStore(runtimePaths(env)), cleanup: () => rm(root, { recursive: true, force: true }) };
}


/** A run configuration for server-everything over stdio; tests override what they exercise. */
export function testRunConfig(name: string, port: number, overrides: Partial<RunConfig> = {}): RunConfig {
  return {
    schema_version: RUN_CONFIG_SCHEMA_VERSION,
    name,
    group: 'default',
    image: 'npx://@modelcontextprotocol/server-everything',
    remote_url: '',
    registry_url: '',
    registry_server_name: '',
    cmd_args: [],
    env_vars: {},
    secrets: [],
    header_forward: {},
    transport: 'stdio',
    proxy_mode: 'streamable-http',
    host: '127.0.0.1',
    port,
    target_port: 0,
    labels: {},
    tools_filter: [],
    tools_override: {},
    rate_limit_config: null,
    max_request_body_size: 0,
    proxy_read_timeout: '',
    session_ttl: '',
    runtime_config: null,
    permission_profile_name_or_path: 'none',
    isolate_network: false,
    trust_proxy_headers: false,
    volumes: [],
    middleware_configs: [],
    created_at: '2026-01-01T00:00:00.000Z',
    command: { command: process.execPath, args: [everythingEntry, 'stdio'], cwd: '', env: {} },
    request: { name },
    ...overrides,
  };
}

/** Polls `probe` until it returns a value other than undefined. */
export async function waitFor<T>(probe: () => Promise<T | undefined>, what: string, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() >= deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}
