import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testRuntime, type TestRuntime } from './fixtures.js';

const TOKEN = 'k3Jx9QmZ2vLr8TnW4yHb6PcD1sFg7AeU';

describe('the local API: DNS rebinding guard', () => {
  let runtime: TestRuntime;
  const get = (headers: Record<string, string>, url = '/api/v1beta/workloads') => runtime.app.http.inject({ url, headers });

  beforeAll(async () => {
    runtime = await testRuntime({ supervisor: 'fake' });
  });
  afterAll(() => runtime.close());

  it('admits the loopback names on any port', async () => {
    for (const host of ['localhost', 'localhost:8180', '127.0.0.1:8180', '[::1]:8180', 'LOCALHOST:1']) {
      expect((await get({ host })).statusCode, host).toBe(200);
    }
  });

  it('refuses any other Host with 403, on every route', async () => {
    for (const host of ['evil.example', 'evil.example:8180', 'localhost.evil.example', '127.0.0.2:8180', '192.168.1.5:8180']) {
      const response = await get({ host });
      expect(response.statusCode, host).toBe(403);
      expect(response.json<{ error: string }>().error).toContain('Host');
    }
    expect((await get({ host: 'evil.example' }, '/health')).statusCode).toBe(403);
  });

  it('admits a loopback Origin and refuses any other', async () => {
    for (const origin of ['http://localhost:3000', 'https://127.0.0.1', 'http://[::1]:5173']) {
      expect((await get({ host: 'localhost:8180', origin })).statusCode, origin).toBe(200);
    }
    for (const origin of ['http://evil.example', 'null', 'file://', 'chrome-extension://abc', 'http://localhost.evil.example']) {
      const response = await get({ host: 'localhost:8180', origin });
      expect(response.statusCode, origin).toBe(403);
      expect(response.json<{ error: string }>().error).toContain('origin');
    }
  });
});

describe('the local API: bearer token', () => {
  let runtime: TestRuntime;
  const get = (url: string, headers: Record<string, string> = {}) => runtime.app.http.inject({ url, headers: { host: '192.0.2.10:8180', ...headers } });

  beforeAll(async () => {
    runtime = await testRuntime({ supervisor: 'fake', token: TOKEN, boundHost: '192.0.2.10' });
  });
  afterAll(() => runtime.close());

  it('needs the token on every route but /health', async () => {
    expect((await get('/health')).statusCode).toBe(200);
    for (const url of ['/api/v1beta/workloads', '/api/v1beta/version', '/api/v1beta/groups', '/openapi.json', '/api/v1beta/workloads/nope']) {
      const response = await get(url);
      expect(response.statusCode, url).toBe(401);
      expect(response.headers['www-authenticate']).toMatch(/^Bearer/);
      expect(response.json<{ error: string }>().error).toContain('Bearer');
    }
  });

  it('refuses a wrong or malformed token and admits the right one, from the bound host too', async () => {
    for (const authorization of [`Bearer ${TOKEN}x`, `Bearer ${TOKEN.slice(1)}`, TOKEN, `Basic ${TOKEN}`, 'Bearer ']) {
      expect((await get('/api/v1beta/workloads', { authorization })).statusCode, authorization).toBe(401);
    }
    expect((await get('/api/v1beta/workloads', { authorization: `Bearer ${TOKEN}` })).statusCode).toBe(200);
    expect((await get('/api/v1beta/workloads', { authorization: `bearer ${TOKEN}`, host: 'localhost:8180' })).statusCode).toBe(200);
  });

  it('still refuses other hosts and origins before looking at the token', async () => {
    expect((await get('/api/v1beta/workloads', { authorization: `Bearer ${TOKEN}`, host: 'evil.example' })).statusCode).toBe(403);
    expect((await get('/api/v1beta/workloads', { authorization: `Bearer ${TOKEN}`, origin: 'http://evil.example' })).statusCode).toBe(403);
  });

  it('names the bearer scheme in the OpenAPI document', async () => {
    const document = (await get('/openapi.json', { authorization: `Bearer ${TOKEN}` })).json<{ security?: unknown }>();
    expect(document.security).toEqual([{ bearer: [] }]);
  });
});
