import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import type { PlatformContext } from '../../src/platform/context.js';
import { createTestPlatform, tempFile, type TestPlatform } from './helpers.js';

/** The key file's problems do not stop the start: only storing a secret answers 503, naming the key to fix. */
describe('managed secrets without a usable key', () => {
  let platform: TestPlatform | undefined;
  afterEach(async () => {
    await platform?.dispose();
    platform = undefined;
  });

  const start = async (secrets: Record<string, unknown>) => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, callback) {
        lines.push(chunk.toString('utf8'));
        callback();
      },
    });
    let context: PlatformContext | undefined;
    platform = await createTestPlatform({
      config: { secrets },
      logger: pino({ level: 'trace' }, sink),
      extraRoutes: (platformContext) => {
        context = platformContext;
      },
    });
    if (!context) throw new Error('no platform context');
    return { platform, context, lines };
  };

  const malformed = `not-a-key-${randomBytes(8).toString('hex')}`;
  const cases: [string, () => Promise<Record<string, unknown>>, RegExp][] = [
    ['not configured', () => Promise.resolve({}), /^managed secrets cannot be stored: secrets\.keyFile is not set; set it to a file holding the base64 of 32 random bytes/],
    ['a file that is not there', () => Promise.resolve({ keyFile: '/nonexistent/secrets.key' }), /^managed secrets cannot be stored: secrets\.keyFile \(\/nonexistent\/secrets\.key\) cannot be read \(ENOENT\)/],
    ['a malformed key', async () => ({ keyFile: await tempFile('secrets.key', malformed) }), /^managed secrets cannot be stored: secrets\.keyFile \(.+\) does not hold the base64 of 32 bytes/],
  ];

  it.each(cases)('with %s: create and replace answer 503 naming secrets.keyFile, everything else works', async (_label, secrets, message) => {
    const { platform: app, context, lines } = await start(await secrets());
    const created = await app.call<{ error: string }>('POST', '/v1/managed-secrets', { body: { name: 'token', value: 'v' } });
    expect(created.status).toBe(503);
    expect(created.body.error).toMatch(message);

    const now = new Date();
    const id = '00000000-0000-4000-8000-000000000001';
    await context.db.insertInto('managed_secrets').values({ id, name: 'stored-earlier', sealed: Buffer.from([1, 2, 3]), created_at: now, updated_at: now }).execute();
    const replaced = await app.call<{ error: string }>('PUT', `/v1/managed-secrets/${id}`, { body: { value: 'v2' } });
    expect(replaced.status).toBe(503);
    expect(replaced.body.error).toMatch(message);

    expect((await app.call('GET', `/v1/managed-secrets/${id}`)).status).toBe(200);
    expect((await app.call<{ items: unknown[] }>('GET', '/v1/managed-secrets')).body.items).toHaveLength(1);
    expect((await app.call('GET', '/v1/gateways')).status).toBe(200);
    const idp = await app.call('POST', '/v1/connector-identity-providers', {
      body: { name: 'Okta', provider_type: 'oidc', oidc_config: { issuer_url: 'https://idp.example.com', client_id: 'c', client_secret: { managed_secret_id: id } } },
    });
    expect(idp.status, idp.text).toBe(201);
    expect((await app.call('DELETE', `/v1/managed-secrets/${id}`)).status).toBe(409);

    const logs = lines.join('');
    expect(logs).toContain('managed secrets cannot be created or replaced until this is fixed: secrets.keyFile');
    expect(logs).not.toContain(malformed);
  });
});
