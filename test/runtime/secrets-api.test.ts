import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { createHttpApp, type HttpApp } from '../../src/core/http/app.js';
import { runtimePaths } from '../../src/runtime/paths.js';
import { registerSecretsRoutes } from '../../src/runtime/secrets/routes.js';
import { createSecretsService } from '../../src/runtime/secrets/service.js';

const API = '/api/v1beta/secrets';
const VALUES = ['ghp_VALUE_one_4f8a', 'ghp_VALUE_two_9c1d', 'sk_VALUE_three_77e2'] as const;

interface Harness {
  call: (method: 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH', url: string, payload?: object | string) => Promise<{ status: number; body: unknown }>;
  /** Every response body and every log line so far. */
  seen: () => string;
}

describe('the local API: secrets', () => {
  const apps: HttpApp[] = [];
  afterEach(async () => {
    await Promise.all(apps.map((app) => app.close()));
    apps.length = 0;
  });

  /** The routes on the shared app factory, with temp XDG directories and no keyring (a headless Linux). */
  async function harness(env: Record<string, string> = {}, dir?: string): Promise<Harness & { dir: string }> {
    const root = dir ?? (await mkdtemp(join(tmpdir(), 'toolyard-secrets-api-')));
    const xdg = { XDG_CONFIG_HOME: join(root, 'config'), XDG_DATA_HOME: join(root, 'data'), XDG_STATE_HOME: join(root, 'state'), XDG_CACHE_HOME: join(root, 'cache') };
    const output: string[] = [];
    const logger = pino({ level: 'trace' }, { write: (line: string) => output.push(line) });
    const app = createHttpApp({ logger });
    const secrets = createSecretsService({
      paths: runtimePaths(xdg, root),
      env: { ...xdg, ...env },
      platform: 'linux',
      findExecutable: () => Promise.resolve(undefined),
      scrypt: { N: 2 ** 10, r: 8, p: 1 },
    });
    registerSecretsRoutes(app, { secrets });
    await app.ready();
    apps.push(app);
    return {
      dir: root,
      call: async (method, url, payload) => {
        const response = await app.inject({
          method,
          url: `${API}${url}`,
          ...(payload !== undefined && { payload, headers: { 'content-type': 'application/json' } }),
        });
        output.push(response.body);
        return { status: response.statusCode, body: response.body === '' ? undefined : response.json() };
      },
      seen: () => output.join('\n'),
    };
  }

  it('sets up the default encrypted provider and describes it', async () => {
    const { call } = await harness();
    expect(await call('GET', '/default')).toEqual({
      status: 200,
      body: { name: 'default', provider_type: 'encrypted', capabilities: { read: true, write: true, list: true, delete: true } },
    });
    const setup = await call('POST', '', { provider_type: 'encrypted' });
    expect(setup.status).toBe(201);
    expect(setup.body).toMatchObject({ provider_type: 'encrypted', message: expect.stringContaining('secrets.key') as unknown });
    expect((await call('POST', '', { provider_type: 'vault' })).status).toBe(400);
    expect(await call('POST', '', { provider_type: 'encrypted', password: 'short' })).toEqual({ status: 400, body: { error: 'body.password: must NOT have fewer than 8 characters' } });
    expect(await call('POST', '', { provider_type: 'environment', password: 'a long password' })).toEqual({
      status: 400,
      body: { error: 'password: only the encrypted provider takes a password' },
    });
  });

  it('creates, lists, updates and deletes keys, never answering a value', async () => {
    const { call, seen } = await harness();
    expect(await call('GET', '/default/keys')).toEqual({ status: 200, body: { keys: [] } });
    expect(await call('POST', '/default/keys', { key: 'github', value: VALUES[0] })).toEqual({ status: 201, body: { key: 'github', message: 'secret created' } });
    expect((await call('POST', '/default/keys', { key: 'api.key', value: VALUES[1] })).status).toBe(201);
    expect(await call('POST', '/default/keys', { key: 'github', value: VALUES[2] })).toEqual({ status: 409, body: { error: 'secret "github" already exists' } });
    expect(await call('GET', '/default/keys')).toEqual({ status: 200, body: { keys: [{ key: 'api.key' }, { key: 'github' }] } });

    expect(await call('PUT', '/default/keys/github', { value: VALUES[2] })).toEqual({ status: 200, body: { key: 'github', message: 'secret updated' } });
    expect(await call('PUT', '/default/keys/nope', { value: VALUES[2] })).toEqual({ status: 404, body: { error: 'secret "nope" not found' } });
    expect(await call('DELETE', '/default/keys/api.key')).toEqual({ status: 204, body: undefined });
    expect((await call('DELETE', '/default/keys/api.key')).status).toBe(404);
    expect(await call('GET', '/default/keys')).toEqual({ status: 200, body: { keys: [{ key: 'github' }] } });

    // bodies that fail validation or parsing are answered without echoing what they carried
    expect((await call('POST', '/default/keys', { key: 'no spaces', value: VALUES[0] })).status).toBe(400);
    expect(await call('POST', '/default/keys', { key: 'x', value: VALUES[0], note: VALUES[1] })).toEqual({ status: 400, body: { error: 'body.note: unknown field' } });
    expect((await call('PUT', '/default/keys/github', `{"value": ${VALUES[0]}}`)).status).toBe(400);
    expect((await call('PUT', '/default/keys/github', { value: VALUES[0], key: VALUES[1] })).status).toBe(400);
    expect((await call('PATCH', '/default/keys/github', { value: VALUES[0] })).status).toBe(405);
    for (const value of VALUES) expect(seen()).not.toContain(value);
  });

  it('answers 404 for a provider other than default', async () => {
    const { call } = await harness();
    expect(await call('GET', '/vault')).toEqual({ status: 404, body: { error: 'secrets provider "vault" not found; the only one is "default"' } });
    expect((await call('GET', '/vault/keys')).status).toBe(404);
    expect((await call('POST', '/vault/keys', { key: 'a', value: VALUES[0] })).status).toBe(404);
    expect((await call('PUT', '/vault/keys/a', { value: VALUES[0] })).status).toBe(404);
    expect((await call('DELETE', '/vault/keys/a')).status).toBe(404);
  });

  it('answers 405 to list, create, update and delete with the environment provider', async () => {
    const { call } = await harness({ TOOLYARD_SECRET_GITHUB: VALUES[0] });
    expect((await call('POST', '', { provider_type: 'environment' })).status).toBe(201);
    expect(await call('GET', '/default')).toEqual({
      status: 200,
      body: { name: 'default', provider_type: 'environment', capabilities: { read: true, write: false, list: false, delete: false } },
    });
    for (const [method, url, payload] of [
      ['GET', '/default/keys', undefined],
      ['POST', '/default/keys', { key: 'github', value: VALUES[1] }],
      ['PUT', '/default/keys/github', { value: VALUES[1] }],
      ['DELETE', '/default/keys/github', undefined],
    ] as const) {
      const response = await call(method, url, payload);
      expect(response.status).toBe(405);
      expect(response.body).toEqual({ error: expect.stringContaining('the environment secrets provider cannot') as unknown });
    }
  });

  it('answers 403 on every key operation when the configured password cannot decrypt the store', async () => {
    const first = await harness({ TOOLYARD_SECRETS_PASSWORD: 'the first password' });
    expect((await first.call('POST', '/default/keys', { key: 'github', value: VALUES[0] })).status).toBe(201);

    const { call, seen } = await harness({ TOOLYARD_SECRETS_PASSWORD: 'a different password' }, first.dir);
    for (const [method, url, payload] of [
      ['GET', '/default/keys', undefined],
      ['POST', '/default/keys', { key: 'other', value: VALUES[1] }],
      ['PUT', '/default/keys/github', { value: VALUES[2] }],
      ['DELETE', '/default/keys/github', undefined],
    ] as const) {
      const response = await call(method, url, payload);
      expect(response.status).toBe(403);
      expect(response.body).toEqual({ error: expect.stringContaining('the secrets store cannot be decrypted with the configured password') as unknown });
    }
    // a setup with a password that does not open the store either is refused, not a fresh empty store
    expect((await call('POST', '', { provider_type: 'encrypted', password: 'a third password' })).status).toBe(403);
    expect((await call('GET', '/default')).status).toBe(200);
    expect(await first.call('GET', '/default/keys')).toEqual({ status: 200, body: { keys: [{ key: 'github' }] } });
    for (const value of VALUES) expect(seen()).not.toContain(value);
  });
});
