import { generateKeyPairSync } from 'node:crypto';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { JWK } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/core/config/load.js';
import { testDatabaseTargets } from '../../src/core/db/database-testing.js';
import { verifyEnvelope, type Envelope } from '../../src/core/signing/envelope.js';
import { runCli } from '../helpers/cli.js';
import { manualClock } from '../helpers/clock.js';
import type { OidcProvider } from '../helpers/oidc-provider.js';
import { createTestPlatform, oauthWith, startTestProvider, type TestPlatform } from './helpers.js';

const CLIENT = { 'x-client-type': 'service-cli', 'x-client-version': '1.4.2' };
const HOUR = 3_600_000;

async function keyFiles(...kids: string[]): Promise<{ kid: string; privateKeyFile: string }[]> {
  const directory = await mkdtemp(join(tmpdir(), 'toolyard-signing-'));
  return Promise.all(
    kids.map(async (kid) => {
      const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
      const privateKeyFile = join(directory, `${kid}.pem`);
      await writeFile(privateKeyFile, privateKey.export({ type: 'pkcs8', format: 'pem' }));
      return { kid, privateKeyFile };
    }),
  );
}

const jwksOf = (platform: TestPlatform) => ({
  keys: async () => (await platform.call<{ keys: JWK[] }>('GET', '/.well-known/jwks.json')).body.keys,
});

describe.each(testDatabaseTargets().map((target) => [target.name, target] as const))('signed client configuration (%s)', (_name, target) => {
  let provider: OidcProvider;
  let platform: TestPlatform;
  let admin: string;
  let auditor: string;
  const clock = manualClock(new Date('2026-11-25T12:00:00.000Z'));

  beforeAll(async () => {
    provider = await startTestProvider();
    platform = await createTestPlatform({
      target,
      clock,
      config: { auth: oauthWith(provider, { resourceUrl: 'https://platform.example.com' }), signing: { keys: await keyFiles('k1') }, clientConfiguration: { clientId: 'toolyard-desktop' } },
    });
    admin = await provider.mint({ sub: 'admin', claims: { roles: ['admin'] } });
    auditor = await provider.mint({ sub: 'auditor', claims: { roles: ['auditor'] } });
  });
  afterAll(async () => {
    await platform.dispose();
    await provider.close();
  });

  it('refuses a request without a valid client type or version, naming the header', async () => {
    const cases: [Record<string, string>, string][] = [
      [{}, 'X-Client-Type'],
      [{ 'x-client-type': 'browser', 'x-client-version': '1.0.0' }, 'X-Client-Type'],
      [{ 'x-client-type': 'service-desktop' }, 'X-Client-Version'],
      [{ 'x-client-type': 'service-desktop', 'x-client-version': 'v1.0.0' }, 'X-Client-Version'],
      [{ 'x-client-type': 'service-desktop', 'x-client-version': '1.0' }, 'X-Client-Version'],
    ];
    for (const [headers, named] of cases) {
      const response = await platform.call<{ error: string }>('GET', '/v1/configuration', { headers });
      expect(response.status, JSON.stringify(headers)).toBe(400);
      expect(response.body.error).toMatch(new RegExp(`^${named}:`));
    }
  });

  it('serves a canonical envelope with exactly eight members, signed and verifiable against the published JWKS', async () => {
    const response = await platform.call<Envelope>('GET', '/v1/configuration', { headers: CLIENT });
    expect(response.status).toBe(200);
    expect(response.headers['cache-control']).toBe('no-cache');
    expect(response.headers.etag).toBe(`"${response.body.etag}"`);
    expect(response.body.etag).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(Object.keys(response.body)).toEqual(['config', 'degraded_mode', 'etag', 'issued_at', 'not_after', 'refresh_interval', 'schema_version', 'signature']);
    expect(response.text).toBe(JSON.stringify(response.body));
    expect(response.body).toMatchObject({
      config: {},
      degraded_mode: { grace_period: '24h', message: '', policy: 'warn' },
      issued_at: '2026-11-25T12:00:00.000Z',
      not_after: '2026-12-02T12:00:00.000Z',
      refresh_interval: '1h',
      schema_version: '1',
    });
    const verdict = await verifyEnvelope(response.text, { jwks: jwksOf(platform), now: clock.now() });
    expect(verdict).toMatchObject({ status: 'valid', kid: 'k1' });
  });

  it('answers 304 to If-None-Match in every form RFC 9110 allows', async () => {
    const { headers } = await platform.call('GET', '/v1/configuration', { headers: CLIENT });
    const etag = String(headers.etag);
    const bare = etag.replace(/"/g, '');
    for (const ifNoneMatch of [etag, bare, `W/${etag}`, `"sha256:other", ${etag}`, '*']) {
      const response = await platform.call('GET', '/v1/configuration', { headers: { ...CLIENT, 'if-none-match': ifNoneMatch } });
      expect(response.status, ifNoneMatch).toBe(304);
      expect(response.headers.etag).toBe(etag);
      expect(response.text).toBe('');
    }
    expect((await platform.call('GET', '/v1/configuration', { headers: { ...CLIENT, 'if-none-match': '"sha256:other"' } })).status).toBe(200);
  });

  it('detects a tampered envelope: a changed directive, a changed etag, an unknown kid', async () => {
    const { text } = await platform.call('GET', '/v1/configuration', { headers: CLIENT });
    const envelope = JSON.parse(text) as Envelope;
    const jwks = jwksOf(platform);
    const now = clock.now();
    const reason = async (input: unknown) => {
      const verdict = await verifyEnvelope(input, { jwks, now });
      return verdict.status === 'invalid' ? verdict.reason : verdict.status;
    };
    expect(await reason({ ...envelope, refresh_interval: '24h' })).toBe('the signature does not verify: the envelope was altered or signed by another key');
    expect(await reason({ ...envelope, etag: `sha256:${'0'.repeat(64)}` })).toBe('the signature does not verify: the envelope was altered or signed by another key');
    expect(await reason({ ...envelope, extra: true })).toMatch(/^the envelope must have exactly the members/);
    expect(await verifyEnvelope(envelope, { jwks: { keys: () => Promise.resolve([]) }, now })).toMatchObject({ status: 'invalid', reason: 'no published key has the kid "k1"' });
    expect(await verifyEnvelope(envelope, { jwks, now: new Date(Date.parse(envelope.not_after) + 1) })).toMatchObject({ status: 'expired' });
    expect(await verifyEnvelope(envelope, { jwks, now, previousIssuedAt: new Date(Date.parse(envelope.issued_at) + 1) })).toEqual({
      status: 'invalid',
      reason: 'the envelope is older than the one already held (a replay)',
    });
  });

  it('lets admin and auditor read the directives, and only admin replace them, with If-Match', async () => {
    const read = await platform.call<Record<string, unknown>>('GET', '/v1/configuration/directives', { token: auditor });
    expect(read.status).toBe(200);
    expect(read.body).toEqual({ config: {}, refresh_interval: '1h', validity: '168h', updated_at: null });
    const etag = String(read.headers.etag);
    const body = { config: { non_registry_servers: { enforcement: 'enforced', value: false } }, refresh_interval: '30m', validity: '72h' };
    const directoryAdmin = await provider.mint({ sub: 'dir', claims: { roles: ['directoryAdmin'] } });
    expect((await platform.call('GET', '/v1/configuration/directives', { token: directoryAdmin })).status).toBe(403);
    expect((await platform.call('PUT', '/v1/configuration/directives', { token: auditor, body, headers: { 'if-match': etag } })).status).toBe(403);
    expect((await platform.call('PUT', '/v1/configuration/directives', { token: admin, body })).status).toBe(428);
    const stale = await platform.call('PUT', '/v1/configuration/directives', { token: admin, body, headers: { 'if-match': '"stale"' } });
    expect(stale.status).toBe(412);
    expect(stale.headers.etag).toBe(etag);

    const before = await platform.call<Envelope>('GET', '/v1/configuration', { headers: CLIENT });
    const written = await platform.call<Record<string, unknown>>('PUT', '/v1/configuration/directives', { token: admin, body, headers: { 'if-match': etag } });
    expect(written.status).toBe(200);
    expect(written.body).toEqual({ ...body, updated_at: '2026-11-25T12:00:00.000Z' });
    expect(written.headers.etag).not.toBe(etag);
    const after = await platform.call<Envelope>('GET', '/v1/configuration', { headers: CLIENT });
    expect(after.body.etag).not.toBe(before.body.etag);
    expect(after.body).toMatchObject({ config: body.config, refresh_interval: '30m', not_after: '2026-11-28T12:00:00.000Z' });

    const audit = await platform.call<{ events: { action: string; actor: { subject: string }; before: unknown; after: unknown }[] }>('GET', '/v1/audit-events?action=configuration.directives.replace', { token: admin });
    expect(audit.body.events[0]).toMatchObject({ actor: { subject: 'admin' }, before: { config: {} }, after: { config: body.config } });
  });

  it('renders durations in their largest whole unit and refuses what the contract does not allow, naming the key', async () => {
    const etag = String((await platform.call('GET', '/v1/configuration/directives', { token: admin })).headers.etag);
    const put = (body: unknown) => platform.call<{ error: string }>('PUT', '/v1/configuration/directives', { token: admin, body, headers: { 'if-match': '*' } });
    const refused: [unknown, RegExp][] = [
      [{ config: { surprise: { enforcement: 'enforced', value: true } } }, /config\.surprise: unknown field/],
      [{ config: { assistant: { enforcement: 'maybe', value: true } } }, /config\.assistant\.enforcement/],
      [{ config: { assistant: { enforcement: 'enforced', value: 'yes' } } }, /config\.assistant\.value/],
      [{ config: { gateway: { enforcement: 'enforced', value: {} } } }, /config\.gateway\.value/],
      [{ config: { build_env: { enforcement: 'default', value: { '1BAD': 'x' } } } }, /config\.build_env\.value/],
      [{ config: { ca_certificate: { enforcement: 'enforced', value: { pem: 'not a certificate' } } } }, /ca_certificate\.value\.pem/],
      [{ config: { ca_certificate: { enforcement: 'enforced', value: { url: 'http://insecure.example.com/ca.pem' } } } }, /ca_certificate\.value\.url/],
      [{ config: { telemetry: { enforcement: 'enforced', value: { sampling_rate: 2 } } } }, /sampling_rate/],
      [{ config: {}, refresh_interval: '30s' }, /^refresh_interval: must be between 1m and 24h/],
      [{ config: {}, refresh_interval: '1d' }, /^refresh_interval: "1d" is not a Go duration/],
      [{ config: {}, validity: '2161h' }, /^validity: must be between 1h and 2160h/],
      [{ config: {}, refresh_interval: '24h', validity: '47h' }, /^validity: must be at least twice refresh_interval \(48h\)/],
      [{ refresh_interval: '1h' }, /config: is required/],
    ];
    for (const [body, message] of refused) {
      const response = await put(body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.body.error).toMatch(message);
    }
    expect(String((await platform.call('GET', '/v1/configuration/directives', { token: admin })).headers.etag)).toBe(etag);
    const written = await put({ config: {}, refresh_interval: '1h30m', validity: '180m' });
    expect(written.body).toMatchObject({ refresh_interval: '90m', validity: '3h' });
  });

  it('builds a new envelope after half its validity, and serves one envelope while it is current', async () => {
    const first = await platform.call<Envelope>('GET', '/v1/configuration', { headers: CLIENT });
    const lifetime = Date.parse(first.body.not_after) - Date.parse(first.body.issued_at);
    clock.advance(lifetime / 2 - 1);
    expect((await platform.call<Envelope>('GET', '/v1/configuration', { headers: CLIENT })).body.etag).toBe(first.body.etag);
    clock.advance(1);
    const renewed = await platform.call<Envelope>('GET', '/v1/configuration', { headers: CLIENT });
    expect(renewed.body.issued_at).toBe(clock.now().toISOString());
    expect(renewed.body.etag).not.toBe(first.body.etag);
    const concurrent = await Promise.all(Array.from({ length: 8 }, () => platform.call<Envelope>('GET', '/v1/configuration', { headers: CLIENT })));
    expect(new Set(concurrent.map((response) => response.body.etag))).toEqual(new Set([renewed.body.etag]));
  });

  it('publishes RFC 9728 metadata and client configuration discovery from the resource URL', async () => {
    const metadata = await platform.call('GET', '/.well-known/oauth-protected-resource');
    expect(metadata.body).toEqual({
      resource: 'https://platform.example.com',
      authorization_servers: [provider.issuer],
      bearer_methods_supported: ['header'],
      jwks_uri: 'https://platform.example.com/.well-known/jwks.json',
      scopes_supported: ['openid', 'profile', 'email', 'offline_access'],
    });
    const discovery = await platform.call('GET', '/.well-known/toolyard-configuration');
    expect(discovery.body).toEqual({
      client_id: 'toolyard-desktop',
      config_endpoint: 'https://platform.example.com/v1/configuration',
      issuer: provider.issuer,
      jwks_uri: 'https://platform.example.com/.well-known/jwks.json',
      oauth_protected_resource: 'https://platform.example.com/.well-known/oauth-protected-resource',
      scopes_supported: ['openid', 'profile', 'email', 'offline_access'],
    });
    const jwks = await platform.call<{ keys: JWK[] }>('GET', '/.well-known/jwks.json');
    expect(jwks.body.keys.map((key) => ({ ...key, x: typeof key.x, y: typeof key.y }))).toEqual([{ kty: 'EC', crv: 'P-256', x: 'string', y: 'string', kid: 'k1', alg: 'ES256', use: 'sig' }]);
  });
});

describe('signing keys', () => {
  it('answers 503 without a signing block, and keeps everything else working', async () => {
    const platform = await createTestPlatform();
    try {
      const response = await platform.call<{ error: string }>('GET', '/v1/configuration', { headers: CLIENT });
      expect(response.status).toBe(503);
      expect(response.body.error).toContain('signing.keys');
      expect((await platform.call('GET', '/v1/configuration/directives')).status).toBe(200);
      expect((await platform.call('GET', '/.well-known/jwks.json')).body).toEqual({ keys: [] });
    } finally {
      await platform.dispose();
    }
  });

  it('stops the start naming a key file that cannot be read or is not an EC P-256 private key', async () => {
    const directory = await mkdtemp(join(tmpdir(), 'toolyard-signing-'));
    const rsa = join(directory, 'rsa.pem');
    await writeFile(rsa, generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }));
    const p384 = join(directory, 'p384.pem');
    await writeFile(p384, generateKeyPairSync('ec', { namedCurve: 'P-384' }).privateKey.export({ type: 'pkcs8', format: 'pem' }));
    const config = { signing: { keys: [{ kid: 'a', privateKeyFile: join(directory, 'missing.pem') }, { kid: 'b', privateKeyFile: rsa }, { kid: 'c', privateKeyFile: p384 }] } };
    const failure = await createTestPlatform({ config }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(ConfigError);
    expect((failure as ConfigError).problems).toEqual([
      expect.stringMatching(/^signing\.keys\[0\]\.privateKeyFile: cannot read .*missing\.pem \(ENOENT\)$/),
      expect.stringMatching(/^signing\.keys\[1\]\.privateKeyFile: .* is not an EC P-256 private key/),
      expect.stringMatching(/^signing\.keys\[2\]\.privateKeyFile: .* is not an EC P-256 private key/),
    ]);
  });

  it('rolls over: a new first key signs at once, the retired key verifies its envelopes until it leaves the set', async () => {
    const [k1, k2] = await keyFiles('k1', 'k2');
    const target = testDatabaseTargets()[0];
    if (!target || !k1 || !k2) throw new Error('no database target');
    const created = await target.create();
    const clock = manualClock(new Date('2026-11-25T12:00:00.000Z'));
    // one database across restarts: the platform is given the same open connection each time
    const open = async (keys: { kid: string; privateKeyFile: string }[]) => {
      const { buildPlatformApp } = await import('../../src/platform/app.js');
      const { platformConfig } = await import('./helpers.js');
      const { silentLogger } = await import('../../src/core/telemetry/logger.js');
      const app = await buildPlatformApp({ config: platformConfig({ signing: { keys } }), database: created.database as never, clock, logger: silentLogger });
      const get = async (url: string, headers: Record<string, string> = {}) => {
        const response = await app.http.inject({ method: 'GET', url, headers });
        return { status: response.statusCode, text: response.body };
      };
      return { app, get };
    };
    try {
      const first = await open([k1]);
      const old = (await first.get('/v1/configuration', CLIENT)).text;
      await first.app.close();

      const rolled = await open([k2, k1]);
      const fresh = JSON.parse((await rolled.get('/v1/configuration', CLIENT)).text) as Envelope;
      const jwks = { keys: async () => (JSON.parse((await rolled.get('/.well-known/jwks.json')).text) as { keys: JWK[] }).keys };
      expect(await verifyEnvelope(fresh, { jwks, now: clock.now() })).toMatchObject({ status: 'valid', kid: 'k2' });
      expect(await verifyEnvelope(old, { jwks, now: clock.now() })).toMatchObject({ status: 'valid', kid: 'k1' });
      await rolled.app.close();

      const retired = await open([k2]);
      const without = { keys: async () => (JSON.parse((await retired.get('/.well-known/jwks.json')).text) as { keys: JWK[] }).keys };
      expect(await verifyEnvelope(old, { jwks: without, now: clock.now() })).toMatchObject({ status: 'invalid', reason: 'no published key has the kid "k1"' });
      await retired.app.close();
    } finally {
      await created.drop();
    }
  });
});

describe('toolyard platform verify-config', () => {
  it('verifies an envelope from the live platform, from a file, and tells a tampered or expired one apart', async () => {
    const [k1] = await keyFiles('k1');
    const clock = manualClock(new Date(Date.now() - 200 * HOUR));
    const platform = await createTestPlatform({ clock, config: { signing: { keys: [k1] } } });
    try {
      await platform.http.listen({ host: '127.0.0.1', port: 0 });
      const address = platform.http.server.address();
      const base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
      await platform.call('PUT', '/v1/configuration/directives', {
        body: { config: { non_registry_servers: { enforcement: 'enforced', value: false }, registry: { enforcement: 'default', value: { api_url: 'https://registry.example.com' } } }, validity: '168h' },
        headers: { 'if-match': '*' },
      });
      const expiredText = (await platform.call('GET', '/v1/configuration', { headers: CLIENT })).text;
      clock.set(new Date());
      const directory = await mkdtemp(join(tmpdir(), 'toolyard-verify-'));
      const jwksFile = join(directory, 'jwks.json');
      await writeFile(jwksFile, (await platform.call('GET', '/.well-known/jwks.json')).text);

      const live = await runCli(['platform', 'verify-config', `${base}/v1/configuration`]);
      expect(live.code, live.output).toBe(0);
      expect(live.output).toContain('valid: signed by kid k1');
      expect(live.output).toMatch(/enforced\s+non_registry_servers = false/);
      expect(live.output).toMatch(/default\s+registry = \{"api_url":"https:\/\/registry.example.com"\}/);

      const file = join(directory, 'envelope.json');
      await writeFile(file, (await platform.call('GET', '/v1/configuration', { headers: CLIENT })).text);
      expect((await runCli(['platform', 'verify-config', file, '--jwks', jwksFile])).code).toBe(0);

      const tampered = join(directory, 'tampered.json');
      const envelope = JSON.parse((await platform.call('GET', '/v1/configuration', { headers: CLIENT })).text) as Envelope;
      await writeFile(tampered, JSON.stringify({ ...envelope, config: {} }));
      const refused = await runCli(['platform', 'verify-config', tampered, '--jwks', jwksFile]);
      expect(refused.code).toBe(1);
      expect(refused.output).toContain('invalid: the signature does not verify');

      const expired = join(directory, 'expired.json');
      await writeFile(expired, expiredText);
      const late = await runCli(['platform', 'verify-config', expired, '--jwks', jwksFile]);
      expect(late.code, late.output).toBe(2);
      expect(late.output).toContain('expired: signed by kid k1');
    } finally {
      await platform.dispose();
    }
  }, 120_000);
});
