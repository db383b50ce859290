import { describe, expect, it } from 'vitest';
import { createEnvironmentSecretReader } from '../secrets/environment.js';
import { proxyPolicy, resolveTarget } from './supervisor-env.js';
import { testRunConfig } from './supervisor-testing.js';

const secrets = createEnvironmentSecretReader({ TOOLYARD_SECRET_API_KEY: 'k-value', TOOLYARD_SECRET_BEARER: 'Bearer t' });

describe('the supervisor plan for a run configuration', () => {
  it('parses the proxy policy, with defaults for what the configuration leaves out', () => {
    expect(proxyPolicy(testRunConfig('w', 1, { proxy_read_timeout: '90s', session_ttl: '2h', max_request_body_size: 1024, tools_filter: ['echo'] }))).toEqual({
      toolsFilter: ['echo'],
      toolsOverride: {},
      rateLimit: null,
      maxBodyBytes: 1024,
      readTimeoutMs: 90_000,
      sessionTtlMs: 7_200_000,
    });
    expect(proxyPolicy(testRunConfig('w', 1))).toMatchObject({
      maxBodyBytes: 4 * 1024 * 1024,
      readTimeoutMs: 5 * 60_000,
      sessionTtlMs: 60 * 60_000,
    });
  });

  it('gives a local HTTP server its target port, over anything the workload env says', async () => {
    const config = testRunConfig('w', 1, {
      transport: 'sse',
      target_port: 4321,
      env_vars: { PORT: '80', MODE: 'x' },
      secrets: [{ name: 'api-key', target: 'API_KEY' }],
      command: { command: '/usr/bin/python3', args: ['-m', 'server'], cwd: '/work/dir', env: { VIRTUAL_ENV: '/venv' } },
    });
    const target = await resolveTarget({ config, secrets, env: { PATH: '/bin', HOME: '/home/u', OTHER: 'no' } });
    expect(target).toEqual({
      kind: 'local-http',
      port: 4321,
      command: {
        command: '/usr/bin/python3',
        args: ['-m', 'server'],
        cwd: '/work/dir',
        env: { PATH: '/bin', HOME: '/home/u', VIRTUAL_ENV: '/venv', MODE: 'x', PORT: '4321', MCP_PORT: '4321', MCP_HOST: '127.0.0.1', API_KEY: 'k-value' },
      },
      proxy: { kind: 'http', url: 'http://127.0.0.1:4321/sse', transport: 'sse' },
    });
  });

  it('resolves the headers of a remote server from secrets, and names a missing one', async () => {
    const config = testRunConfig('w', 1, {
      remote_url: 'https://mcp.example.com/mcp',
      transport: 'streamable-http',
      header_forward: { add_plaintext_headers: { 'X-Team': 'a' }, add_headers_from_secret: { Authorization: 'bearer' } },
    });
    expect(await resolveTarget({ config, secrets, env: {} })).toEqual({
      kind: 'remote',
      proxy: { kind: 'http', url: 'https://mcp.example.com/mcp', transport: 'streamable-http', headers: { 'X-Team': 'a', Authorization: 'Bearer t' } },
    });
    const missing = { ...config, header_forward: { add_headers_from_secret: { Authorization: 'gone' } } };
    await expect(resolveTarget({ config: missing, secrets, env: {} })).rejects.toThrow('secret "gone" (for header Authorization) is not set');
  });
});
