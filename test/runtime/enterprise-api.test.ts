import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EnterpriseStatus } from '../../src/runtime/enterprise/schemas.js';
import { freePort } from '../helpers/cli.js';
import { manualClock } from '../helpers/clock.js';
import { signingKeys, startEnterpriseRegistry, startPlatformFront, type PlatformFront, type SigningKey } from './enterprise-platform.js';
import { testRuntime, type TestRuntime } from './fixtures.js';

const HOUR = 3_600_000;
const API = '/api/v1beta';

describe('the enterprise configuration, through the runtime API, from a real platform', () => {
  const clock = manualClock(new Date('2026-11-25T12:00:00.000Z'));
  let keys: SigningKey[];
  let front: PlatformFront;
  let registry: { url: string; close: () => Promise<void> };
  let runtime: TestRuntime;
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters -- callers name the body type they expect
  const call = async <T = Record<string, unknown>>(method: 'GET' | 'PUT' | 'POST' | 'DELETE', url: string, payload?: object) => {
    const response = await runtime.app.http.inject({ method, url: `${API}${url}`, ...(payload !== undefined && { payload }) });
    return { status: response.statusCode, body: (response.body === '' ? undefined : JSON.parse(response.body)) as T };
  };
  const status = async () => (await call<EnterpriseStatus>('GET', '/enterprise')).body;
  const refresh = async () => {
    const response = await call<EnterpriseStatus>('POST', '/enterprise/refresh');
    expect(response.status).toBe(200);
    return response.body;
  };
  const directives = (nonRegistry: boolean) => ({
    config: {
      registry: { enforcement: 'enforced', value: { api_url: registry.url, allow_private_ip: true } },
      non_registry_servers: { enforcement: 'enforced', value: nonRegistry },
      degraded_mode: { enforcement: 'enforced', value: { policy: 'block_new', grace_period: '24h', message: 'Call the help desk' } },
    },
    refresh_interval: '1h',
    validity: '168h',
  });

  beforeAll(async () => {
    keys = await signingKeys('k1', 'k2');
    front = await startPlatformFront({ clock, keys: keys.slice(0, 1) });
    registry = await startEnterpriseRegistry();
    runtime = await testRuntime({ supervisor: 'fake', clock });
    await front.putDirectives(directives(false));
  });
  afterAll(async () => {
    await runtime.close();
    await front.close();
    await registry.close();
  });

  it('says nothing is set before a platform is given', async () => {
    expect(await status()).toMatchObject({ configured: false, mode: 'none', envelope: null, blocks_new_workloads: false });
    expect((await call('POST', '/enterprise/refresh')).status).toBe(404);
  });

  it('refuses what is not a platform, keeping nothing', async () => {
    expect((await call('PUT', '/enterprise', { url: 'ftp://platform.example.com' })).status).toBe(400);
    expect((await call('PUT', '/enterprise', { url: front.url, colour: 'red' })).status).toBe(400);
    expect((await call('PUT', '/enterprise', { url: front.url, token_file: 'relative/token' })).body).toEqual({ error: 'token_file must be an absolute path, not "relative/token"' });
    const noDiscovery = await call<{ error: string }>('PUT', '/enterprise', { url: registry.url });
    expect(noDiscovery.status).toBe(400);
    expect(noDiscovery.body.error).toMatch(/^url: cannot use .*give the configuration URL/);
    const closed = `http://127.0.0.1:${String(await freePort())}`;
    const unreachable = await call<{ error: string }>('PUT', '/enterprise', { url: closed });
    expect(unreachable.status).toBe(400);
    expect(unreachable.body.error).toBe(`url: cannot use ${closed}: the platform at ${closed.slice('http://'.length)} cannot be reached (ECONNREFUSED)`);
    expect((await status()).configured).toBe(false);
  });

  it('discovers the platform from its base URL, verifies and applies its envelope, and says what applies', async () => {
    const set = await call<EnterpriseStatus>('PUT', '/enterprise', { url: front.url });
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({
      configured: true,
      platform_url: front.url,
      config_url: `${front.url}/v1/configuration`,
      jwks_uri: `${front.url}/.well-known/jwks.json`,
      token_file: '',
      mode: 'current',
      policy: 'block_new',
      blocks_new_workloads: false,
      last_refresh: { outcome: 'applied', error: '' },
    });
    expect(set.body.envelope).toMatchObject({ kid: 'k1', not_after: '2026-12-02T12:00:00.000Z', refresh_interval: '1h', grace_period: '24h', directives: directives(false).config });
    const fetched = front.seen.filter((request) => request.path === '/v1/configuration');
    expect(fetched.at(-1)?.headers).toMatchObject({ 'x-client-type': 'service-cli', 'x-client-version': expect.stringMatching(/^\d+\.\d+\.\d+/) as string });
    expect(await status()).toEqual(set.body);
  });

  it("serves the enterprise registry's catalog and refuses a local change of the registry, naming the directive", async () => {
    const { body } = await call<{ registries: { type: string; source: string }[] }>('GET', '/registry');
    expect(body.registries).toEqual([expect.objectContaining({ type: 'api', source: registry.url })]);
    const servers = await call<{ remote_servers: { name: string }[] }>('GET', '/registry/default/servers');
    expect(servers.body.remote_servers.map((server) => server.name)).toEqual(['corp-tool']);
    const change = await call<{ error: string }>('PUT', '/registry/default', { url: 'https://elsewhere.example.com/catalog.json' });
    expect(change.status).toBe(403);
    expect(change.body.error).toContain('directive "registry"');
    expect((await call<{ registries: { source: string }[] }>('GET', '/registry')).body.registries[0]?.source).toBe(registry.url);
  });

  it('refuses a server that is not from the registry catalog, naming the directive, and runs one that is', async () => {
    const adhoc = await call<{ error: string }>('POST', '/workloads', { name: 'adhoc', url: 'http://127.0.0.1:9/mcp' });
    expect(adhoc.status).toBe(403);
    expect(adhoc.body.error).toContain('directive "non_registry_servers"');
    expect((await call('POST', '/workloads', { name: 'corp', registry: 'default', server: 'io.acme/corp-tool' })).status).toBe(201);
    const edit = await call<{ error: string }>('POST', '/workloads/corp/edit', { url: 'http://127.0.0.1:9/mcp' });
    expect(edit.status).toBe(403);
    expect(edit.body.error).toContain('non_registry_servers');
    expect((await call('GET', '/workloads/adhoc')).status).toBe(404);
  });

  it('refreshes with If-None-Match: a 304 keeps the envelope', async () => {
    const before = await status();
    const after = await refresh();
    expect(front.seen.at(-1)?.headers['if-none-match']).toBe(`"${before.envelope?.etag ?? ''}"`);
    expect(after.last_refresh).toMatchObject({ outcome: 'not_modified', error: '' });
    expect(after.envelope).toEqual(before.envelope);
  });

  it('never applies a tampered envelope: the last valid one stays in force', async () => {
    const before = await status();
    front.mode = 'tamper';
    try {
      const after = await refresh();
      expect(after.last_refresh).toMatchObject({ outcome: 'refused', error: expect.stringContaining('the signature does not verify') as string });
      expect(after.envelope).toEqual(before.envelope);
      expect(after.mode).toBe('current');
      expect((await call('POST', '/workloads', { name: 'adhoc', url: 'http://127.0.0.1:9/mcp' })).status).toBe(403);
    } finally {
      front.mode = 'up';
    }
  });

  it('rolls over to a new signing key: the unknown kid makes the runtime read the keys again', async () => {
    await front.restartWith([keys[1] as SigningKey, keys[0] as SigningKey]);
    // a minute later, so the re-signed envelope differs from the held one (same content and times: same etag)
    clock.advance(60_000);
    const jwksReads = () => front.seen.filter((request) => request.path === '/.well-known/jwks.json').length;
    const before = jwksReads();
    const after = await refresh();
    expect(after.last_refresh?.outcome).toBe('applied');
    expect(after.envelope?.kid).toBe('k2');
    expect(jwksReads()).toBe(before + 1);
  });

  it('applies a changed configuration at the next refresh', async () => {
    await front.putDirectives(directives(true));
    expect((await refresh()).envelope?.directives.non_registry_servers).toEqual({ enforcement: 'enforced', value: true });
    expect((await call('POST', '/workloads', { name: 'adhoc', url: 'http://127.0.0.1:9/mcp' })).status).toBe(201);
    await front.putDirectives(directives(false));
    await refresh();
  });

  it('keeps working in degraded mode while the platform is down, as the envelope says', async () => {
    const held = await status();
    front.mode = 'down';
    try {
      const down = await refresh();
      expect(down).toMatchObject({ mode: 'current', message: '', blocks_new_workloads: false, last_refresh: { outcome: 'unreachable' } });
      expect(down.reason).toContain('cannot be reached');
      expect(down.envelope).toEqual(held.envelope);

      clock.set(new Date(held.envelope?.not_after ?? ''));
      const grace = await refresh();
      expect(grace).toMatchObject({ mode: 'grace', message: 'Call the help desk', blocks_new_workloads: false });
      expect((await call('POST', '/workloads', { name: 'in-grace', registry: 'default', server: 'io.acme/corp-tool' })).status).toBe(201);
      expect((await call('POST', '/workloads', { name: 'adhoc-2', url: 'http://127.0.0.1:9/mcp' })).status).toBe(403);

      clock.advance(24 * HOUR);
      const degraded = await refresh();
      expect(degraded).toMatchObject({ mode: 'degraded', policy: 'block_new', blocks_new_workloads: true, message: 'Call the help desk' });
      const blocked = await call<{ error: string }>('POST', '/workloads', { name: 'blocked', registry: 'default', server: 'io.acme/corp-tool' });
      expect(blocked.status).toBe(403);
      expect(blocked.body.error).toContain('degraded_mode');
      expect(blocked.body.error).toContain('Call the help desk');
      const running = await call<{ workloads: { name: string; status: string }[] }>('GET', '/workloads');
      expect(running.body.workloads.map((workload) => workload.name)).toEqual(expect.arrayContaining(['corp', 'in-grace']));
      expect((await call('PUT', '/registry/default', { url: 'https://elsewhere.example.com/catalog.json' })).status).toBe(403);
    } finally {
      front.mode = 'up';
    }
    const back = await refresh();
    expect(back).toMatchObject({ mode: 'current', blocks_new_workloads: false, last_refresh: { outcome: 'applied' } });
    expect((await call('POST', '/workloads', { name: 'after', registry: 'default', server: 'io.acme/corp-tool' })).status).toBe(201);
  });

  it('unset stops enforcing: the user may change the registry and run any server again', async () => {
    expect((await call('DELETE', '/enterprise')).status).toBe(204);
    expect(await status()).toMatchObject({ configured: false, mode: 'none', envelope: null, last_refresh: null });
    expect((await call('POST', '/workloads', { name: 'adhoc-3', url: 'http://127.0.0.1:9/mcp' })).status).toBe(201);
    expect((await call<{ registries: { type: string }[] }>('GET', '/registry')).body.registries[0]?.type).toBe('default');
    expect((await call('PUT', '/registry/default', { api_url: registry.url, allow_private_ip: true })).status).toBe(200);
  });
});

describe('an envelope that has expired', () => {
  it('is never applied: set refuses it and keeps nothing', async () => {
    const platformClock = manualClock(new Date('2026-11-01T00:00:00.000Z'));
    const front = await startPlatformFront({ clock: platformClock, keys: await signingKeys('k1') });
    // the runtime's clock is past the envelope's not_after (issued_at + 168h)
    const runtime = await testRuntime({ supervisor: 'fake', clock: manualClock(new Date('2026-11-09T00:00:00.000Z')) });
    try {
      const set = await runtime.app.http.inject({ method: 'PUT', url: `${API}/enterprise`, payload: { url: front.url } });
      expect(set.statusCode).toBe(400);
      expect(set.json<{ error: string }>().error).toBe(`url: cannot use ${front.url}: the platform's envelope expired at 2026-11-08T00:00:00.000Z and was not applied`);
      expect((await runtime.app.http.inject({ method: 'GET', url: `${API}/enterprise` })).json()).toMatchObject({ configured: false });
    } finally {
      await runtime.close();
      await front.close();
    }
  });
});

describe('the enterprise routes behind the runtime token', () => {
  it('need the bearer token like every other route', async () => {
    const token = 'a'.repeat(40);
    const runtime = await testRuntime({ supervisor: 'fake', token });
    try {
      expect((await runtime.app.http.inject({ method: 'GET', url: `${API}/enterprise` })).statusCode).toBe(401);
      expect((await runtime.app.http.inject({ method: 'DELETE', url: `${API}/enterprise` })).statusCode).toBe(401);
      expect((await runtime.app.http.inject({ method: 'GET', url: `${API}/enterprise`, headers: { authorization: `Bearer ${token}` } })).statusCode).toBe(200);
    } finally {
      await runtime.close();
    }
  });
});

describe('directives with enforcement default', () => {
  it('apply until the user sets their own, and refuse nothing', async () => {
    const clock = manualClock(new Date('2026-11-25T12:00:00.000Z'));
    const front = await startPlatformFront({ clock, keys: await signingKeys('k1') });
    const [company, own] = await Promise.all([startEnterpriseRegistry(), startEnterpriseRegistry()]);
    const runtime = await testRuntime({ supervisor: 'fake', clock });
    const call = (method: 'GET' | 'PUT' | 'POST', url: string, payload?: object) => runtime.app.http.inject({ method, url: `${API}${url}`, ...(payload !== undefined && { payload }) });
    const source = async () => (await call('GET', '/registry')).json<{ registries: { source: string }[] }>().registries[0]?.source;
    try {
      await front.putDirectives({
        config: {
          registry: { enforcement: 'default', value: { api_url: company.url, allow_private_ip: true } },
          non_registry_servers: { enforcement: 'default', value: false },
        },
      });
      expect((await call('PUT', '/enterprise', { url: front.url })).statusCode).toBe(200);
      expect(await source()).toBe(company.url);
      expect((await call('POST', '/workloads', { name: 'adhoc', url: 'http://127.0.0.1:9/mcp' })).statusCode).toBe(201);
      expect((await call('PUT', '/registry/default', { api_url: own.url, allow_private_ip: true })).statusCode).toBe(200);
      expect(await source()).toBe(own.url);
      expect((await call('PUT', '/registry/default', {})).statusCode).toBe(200);
      expect(await source()).toBe(company.url);
    } finally {
      await runtime.close();
      await Promise.all([front.close(), company.close(), own.close()]);
    }
  });
});
