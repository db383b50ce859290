import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabaseTargets } from '../../src/core/db/database-testing.js';
import type { PlatformContext } from '../../src/platform/context.js';
import type { ManagedSecrets } from '../../src/platform/secrets/index.js';
import type { ManagedSecret } from '../../src/platform/secrets/schemas.js';
import { nowSeconds, type OidcProvider } from '../helpers/oidc-provider.js';
import { createTestPlatform, oauthWith, startTestProvider, tempFile, type TestPlatform } from './helpers.js';

type Page = { items: ManagedSecret[]; next_cursor?: string; prev_cursor?: string };
type AuditEvents = { events: { action: string; target: { id: string | null }; before: unknown; after: unknown }[] };
const SECRETS = '/v1/managed-secrets';

describe.each(testDatabaseTargets().map((target) => [target.name, target] as const))('managed secrets (%s)', (_name, target) => {
  let provider: OidcProvider;
  let platform: TestPlatform;
  let context: PlatformContext;
  let secrets: ManagedSecrets;
  let auditFile: string;
  const logLines: string[] = [];
  /** Every value written in this file: none may appear in a response, an audit record or a log line. */
  const values: string[] = [];
  const tokens = { connector: '', auditor: '', admin: '', alice: '', billing: '' };

  const value = (label: string) => {
    const made = `${label}-${randomBytes(12).toString('hex')}`;
    values.push(made);
    return made;
  };
  const create = async (name: string, secret = value(name)) => {
    const response = await platform.call<ManagedSecret>('POST', SECRETS, { token: tokens.connector, body: { name, value: secret } });
    expect(response.status, response.text).toBe(201);
    return response.body;
  };
  const sealedOf = async (id: string) => (await context.db.selectFrom('managed_secrets').select('sealed').where('id', '=', id).executeTakeFirstOrThrow()).sealed;

  beforeAll(async () => {
    provider = await startTestProvider();
    const keyFile = await tempFile('secrets.key', `${randomBytes(32).toString('base64')}\n`);
    auditFile = await tempFile('audit.jsonl', '');
    const sink = new Writable({
      write(chunk: Buffer, _encoding, callback) {
        logLines.push(chunk.toString('utf8'));
        callback();
      },
    });
    platform = await createTestPlatform({
      target,
      config: { auth: oauthWith(provider), secrets: { keyFile }, audit: { file: auditFile } },
      logger: pino({ level: 'trace' }, sink),
      extraRoutes: (platformContext, features) => {
        context = platformContext;
        secrets = features.secrets;
      },
    });
    const exp = nowSeconds() + 3600;
    tokens.connector = await provider.mint({ sub: 'connie', exp, claims: { roles: ['connectorAdmin'] } });
    tokens.auditor = await provider.mint({ sub: 'audrey', exp, claims: { roles: ['auditor'] } });
    tokens.admin = await provider.mint({ sub: 'root', exp, claims: { roles: ['admin'] } });
    tokens.billing = await provider.mint({ sub: 'bill', exp, claims: { roles: ['billingAdmin'] } });
    tokens.alice = await provider.mint({ sub: 'alice', exp });
  });
  afterAll(async () => {
    await platform.dispose();
    await provider.close();
  });

  it('creates a secret whose record has every field and no value, and keeps only its ciphertext', async () => {
    const secret = value('github-token');
    const response = await platform.call<ManagedSecret>('POST', SECRETS, { token: tokens.connector, body: { name: 'github-token', value: secret } });
    expect(response.status, response.text).toBe(201);
    expect(Object.keys(response.body)).toEqual(['created_at', 'id', 'name', 'updated_at']);
    expect(response.body).toMatchObject({ name: 'github-token', created_at: response.body.updated_at });
    expect(response.text).not.toContain(secret);

    const sealed = Buffer.from(await sealedOf(response.body.id));
    expect(sealed.includes(Buffer.from(secret))).toBe(false);
    expect(await secrets.reveal(response.body.id)).toBe(secret);

    const read = await platform.call<ManagedSecret>('GET', `${SECRETS}/${response.body.id}`, { token: tokens.auditor });
    expect(read.status).toBe(200);
    expect(read.body).toEqual(response.body);
    expect(await secrets.exists(response.body.id)).toBe(true);
  });

  it('seals each write with a fresh IV, and a ciphertext moved onto another row does not decrypt', async () => {
    const same = value('same');
    const first = await create('copy-source', same);
    const second = await create('copy-target', same);
    const sealed = Buffer.from(await sealedOf(first.id));
    expect(sealed.equals(Buffer.from(await sealedOf(second.id)))).toBe(false);

    await context.db.updateTable('managed_secrets').set({ sealed }).where('id', '=', second.id).execute();
    await expect(secrets.reveal(second.id)).rejects.toMatchObject({ status: 503, message: expect.stringContaining('"copy-target" cannot be decrypted') as unknown });
    expect(await secrets.reveal(first.id)).toBe(same);
  });

  it('replaces a value: new ciphertext, updated_at moves, the record stays without it', async () => {
    const created = await create('rotating');
    const before = Buffer.from(await sealedOf(created.id));
    const next = value('rotated');
    const response = await platform.call<ManagedSecret>('PUT', `${SECRETS}/${created.id}`, { token: tokens.connector, body: { value: next } });
    expect(response.status, response.text).toBe(200);
    expect(response.body).toMatchObject({ id: created.id, name: 'rotating', created_at: created.created_at });
    expect(response.body.updated_at >= created.updated_at).toBe(true);
    expect(Buffer.from(await sealedOf(created.id)).equals(before)).toBe(false);
    expect(await secrets.reveal(created.id)).toBe(next);

    const missing = await platform.call('PUT', `${SECRETS}/00000000-0000-4000-8000-000000000000`, { token: tokens.connector, body: { value: value('x') } });
    expect(missing.status).toBe(404);
  });

  it('refuses a taken name (ignoring case) with 409, and bad input with 400 naming the field', async () => {
    await create('Slack-Bot');
    const taken = await platform.call<{ error: string }>('POST', SECRETS, { token: tokens.connector, body: { name: 'slack-bot', value: value('dup') } });
    expect(taken.status).toBe(409);
    expect(taken.body.error).toContain('"slack-bot" already exists');

    const big = await platform.call<{ error: string }>('POST', SECRETS, { token: tokens.connector, body: { name: 'big', value: 'é'.repeat(32 * 1024 + 1) } });
    expect(big.status).toBe(400);
    expect(big.body.error).toMatch(/^value: at most 65536 bytes/);
    const fits = await platform.call('POST', SECRETS, { token: tokens.connector, body: { name: 'fits', value: 'x'.repeat(64 * 1024) } });
    expect(fits.status).toBe(201);

    for (const [body, field] of [
      [{ name: 'no-value' }, 'body.value'],
      [{ name: '', value: 'v' }, 'body.name'],
      [{ name: 'n', value: '' }, 'body.value'],
      [{ name: 'n', value: 'v', id: 'mine' }, 'body.id'],
      [{ name: 'n', value: 42 }, 'body.value'],
    ] as const) {
      const response = await platform.call<{ error: string }>('POST', SECRETS, { token: tokens.connector, body });
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.body.error.startsWith(`${field}:`), response.body.error).toBe(true);
    }
    const badId = await platform.call<{ error: string }>('GET', `${SECRETS}/not-a-uuid`, { token: tokens.connector });
    expect(badId.status).toBe(400);
  });

  it('answers 401 without a token and 403 without the role; the auditor reads, only connectorAdmin and admin write', async () => {
    const created = await create('roles');
    expect((await platform.call('GET', SECRETS)).status).toBe(401);
    expect((await platform.call('POST', SECRETS, { body: { name: 'anon', value: 'v' } })).status).toBe(401);
    for (const token of [tokens.alice, tokens.billing]) {
      expect((await platform.call('GET', SECRETS, { token })).status).toBe(403);
      expect((await platform.call('GET', `${SECRETS}/${created.id}`, { token })).status).toBe(403);
    }
    const denied = await platform.call<{ error: string }>('POST', SECRETS, { token: tokens.auditor, body: { name: 'by-auditor', value: value('a') } });
    expect(denied.status).toBe(403);
    expect(denied.body.error).toBe('creating managed secrets needs the role admin or connectorAdmin');
    expect((await platform.call('PUT', `${SECRETS}/${created.id}`, { token: tokens.auditor, body: { value: value('a') } })).status).toBe(403);
    expect((await platform.call('DELETE', `${SECRETS}/${created.id}`, { token: tokens.auditor })).status).toBe(403);
    expect((await platform.call('GET', SECRETS, { token: tokens.auditor })).status).toBe(200);
    expect((await platform.call('POST', SECRETS, { token: tokens.admin, body: { name: 'by-admin', value: value('admin') } })).status).toBe(201);
  });

  it('deletes a secret (204, then 404), but not while an identity provider references it (409 naming it)', async () => {
    const used = await create('idp-client-secret');
    const idp = await platform.call<{ id: string }>('POST', '/v1/connector-identity-providers', {
      token: tokens.connector,
      body: { name: 'Okta', provider_type: 'oidc', oidc_config: { issuer_url: 'https://idp.example.com', client_id: 'c', client_secret: { managed_secret_id: used.id } } },
    });
    expect(idp.status, idp.text).toBe(201);
    const refused = await platform.call<{ error: string }>('DELETE', `${SECRETS}/${used.id}`, { token: tokens.connector });
    expect(refused.status).toBe(409);
    expect(refused.body.error).toBe(`managed secret "idp-client-secret" is referenced by identity provider "Okta" (${idp.body.id}) as oidc_config.client_secret; change or delete those first`);
    expect(await secrets.exists(used.id)).toBe(true);

    expect((await platform.call('DELETE', `/v1/connector-identity-providers/${idp.body.id}`, { token: tokens.connector })).status).toBe(204);
    expect((await platform.call('DELETE', `${SECRETS}/${used.id}`, { token: tokens.connector })).status).toBe(204);
    expect((await platform.call('GET', `${SECRETS}/${used.id}`, { token: tokens.connector })).status).toBe(404);
    expect((await platform.call('DELETE', `${SECRETS}/${used.id}`, { token: tokens.connector })).status).toBe(404);
    expect(await secrets.exists(used.id)).toBe(false);
    await expect(secrets.reveal(used.id)).rejects.toMatchObject({ status: 404 });
  });

  it('pages by name with cursor and before, and refuses cursors it did not issue', async () => {
    for (const name of ['page-c', 'page-a', 'page-e', 'page-b', 'page-d']) await create(name);
    const names = async (query: string) => {
      const response = await platform.call<Page>('GET', `${SECRETS}?${query}`, { token: tokens.auditor });
      expect(response.status, response.text).toBe(200);
      return response.body;
    };
    const all = (await names('limit=200')).items.map((item) => item.name);
    expect(all).toEqual([...all].sort());
    const start = all.indexOf('page-a');
    const first = await names('limit=2');
    expect(first.prev_cursor).toBeUndefined();
    // walk to page-a's page by cursor, then over the five page-* names two at a time
    let page = first;
    const seen = [...first.items.map((item) => item.name)];
    while (page.next_cursor !== undefined) {
      page = await names(`limit=2&cursor=${page.next_cursor}`);
      seen.push(...page.items.map((item) => item.name));
    }
    expect(seen).toEqual(all);
    expect(seen.slice(start, start + 5)).toEqual(['page-a', 'page-b', 'page-c', 'page-d', 'page-e']);

    const second = await names(`limit=2&cursor=${String(first.next_cursor)}`);
    expect(second.prev_cursor).toBeDefined();
    const back = await names(`limit=2&before=${String(second.prev_cursor)}`);
    expect(back.items).toEqual(first.items);
    expect(back.prev_cursor).toBeUndefined();
    expect(back.next_cursor).toBeDefined();

    const groupsCursor = Buffer.from(JSON.stringify(['groups', 'a', '00000000-0000-4000-8000-000000000000'])).toString('base64url');
    for (const query of [`cursor=${groupsCursor}`, 'cursor=garbage', `cursor=${String(first.next_cursor)}&before=${String(second.prev_cursor)}`, 'limit=0', 'limit=1.5']) {
      const response = await platform.call('GET', `${SECRETS}?${query}`, { token: tokens.auditor });
      expect(response.status, query).toBe(400);
    }
    const clamped = await names('limit=100000');
    expect(clamped.items.length).toBe(Math.min(all.length, 200));
  });

  it('audits every write without the value, and never logs a value', async () => {
    const audited = await create('audited');
    await platform.call('PUT', `${SECRETS}/${audited.id}`, { token: tokens.connector, body: { value: value('audited-2') } });
    await platform.call('DELETE', `${SECRETS}/${audited.id}`, { token: tokens.connector });
    const events = await platform.call<AuditEvents>('GET', `/v1/audit-events?target_id=${audited.id}`, { token: tokens.admin });
    expect(events.status, events.text).toBe(200);
    expect(events.body.events.map((event) => event.action).sort()).toEqual(['managed_secret.create', 'managed_secret.delete', 'managed_secret.replace']);
    expect(events.body.events.find((event) => event.action === 'managed_secret.create')?.after).toEqual(audited);

    const everything = await platform.call('GET', '/v1/audit-events?limit=200', { token: tokens.admin });
    const auditCopy = await readFile(auditFile, 'utf8');
    const logs = logLines.join('');
    expect(logs).toContain('/v1/managed-secrets');
    for (const secret of values) {
      expect(everything.text).not.toContain(secret);
      expect(auditCopy).not.toContain(secret);
      expect(logs).not.toContain(secret);
    }
  });
});
