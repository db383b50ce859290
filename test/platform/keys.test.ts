import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabaseTargets } from '../../src/core/db/database-testing.js';
import type { PlatformContext } from '../../src/platform/context.js';
import { TOPICS } from '../../src/platform/context.js';
import { AUTH_ONLY_PATH, registerAuthOnlyRoutes } from '../../src/platform/keys/gateway-auth-testing.js';
import type { Key } from '../../src/platform/keys/schemas.js';
import { hashSecret } from '../../src/platform/keys/secret.js';
import { manualClock } from '../helpers/clock.js';
import { nowSeconds, type OidcProvider } from '../helpers/oidc-provider.js';
import { createTestPlatform, oauthWith, startTestProvider, type CallResult, type TestPlatform } from './helpers.js';

const HOUR = 3_600_000;
type Created = { key: Key; secret: string };
type Page = { keys: Key[]; next_cursor?: string; prev_cursor?: string };
type AuditEvents = { events: { action: string; actor: { subject: string; user_id: string | null }; target: { id: string }; before: unknown; after: unknown }[] };

describe.each(testDatabaseTargets().map((target) => [target.name, target] as const))('virtual API keys (%s)', (_name, target) => {
  let provider: OidcProvider;
  let platform: TestPlatform;
  let context: PlatformContext | undefined;
  const clock = manualClock(new Date(Math.floor(Date.now() / 1000) * 1000));
  const tokens: Record<'alice' | 'bob' | 'admin' | 'auditor' | 'directoryAdmin', string> = { alice: '', bob: '', admin: '', auditor: '', directoryAdmin: '' };

  const create = async (token: string, body: Record<string, unknown> = { name: 'laptop' }) => {
    const response = await platform.call<Created>('POST', '/v1/me/keys', { token, body });
    expect(response.status, response.text).toBe(201);
    return response.body;
  };
  const post = <T = Key>(token: string, url: string) => platform.call<T>('POST', url, { token });
  /** The gateway's authentication step alone, through a route that only authenticates. */
  const authenticate = (headers: Record<string, string>, format: 'openai' | 'anthropic' | 'gemini' = 'openai', query = '') =>
    platform.call<Record<string, unknown>>('GET', `${AUTH_ONLY_PATH}/${format}${query}`, { headers });
  const bearer = (secret: string) => ({ authorization: `Bearer ${secret}` });
  const db = () => {
    if (!context) throw new Error('no platform context');
    return context.db;
  };
  const openAiCode = (response: CallResult<Record<string, unknown>>) => (response.body.error as { code?: string } | undefined)?.code;

  beforeAll(async () => {
    provider = await startTestProvider();
    platform = await createTestPlatform({
      target,
      clock,
      config: { auth: oauthWith(provider) },
      extraRoutes: (platformContext, features) => {
        context = platformContext;
        registerAuthOnlyRoutes(platformContext.http, features.keys.authentication);
      },
    });
    const exp = nowSeconds() + 30 * 24 * 3600;
    tokens.alice = await provider.mint({ sub: 'alice', exp, claims: { preferred_username: 'alice' } });
    tokens.bob = await provider.mint({ sub: 'bob', exp, claims: { preferred_username: 'bob' } });
    tokens.admin = await provider.mint({ sub: 'admin', exp, claims: { roles: ['admin'] } });
    tokens.auditor = await provider.mint({ sub: 'auditor', exp, claims: { roles: ['auditor'] } });
    tokens.directoryAdmin = await provider.mint({ sub: 'directory-admin', exp, claims: { roles: ['directoryAdmin'] } });
  });
  afterAll(async () => {
    await platform.dispose();
    await provider.close();
  });

  it('creates a key whose secret is shown once, stored only as its hash, with every field of the record', async () => {
    const expiresAt = new Date(clock.now().getTime() + 48 * HOUR).toISOString();
    const response = await platform.call<Created>('POST', '/v1/me/keys', { token: tokens.alice, body: { name: 'ci', expires_at: expiresAt, metadata: { team: 'infra', 'cost.center': '42' } } });
    expect(response.status).toBe(201);
    expect(response.headers['cache-control']).toBe('no-store');
    const { key, secret } = response.body;
    expect(secret).toMatch(/^tyk_[0-9A-Za-z]{43}$/);
    expect(Object.keys(key)).toEqual(['created_at', 'created_by', 'expires_at', 'id', 'last_used_at', 'metadata', 'name', 'owner_ref', 'prefix', 'status']);
    expect(key).toMatchObject({
      created_at: clock.now().toISOString(),
      created_by: 'alice',
      expires_at: expiresAt,
      last_used_at: null,
      metadata: { team: 'infra', 'cost.center': '42' },
      name: 'ci',
      prefix: secret.slice(0, 12),
      status: 'active',
    });
    const fetched = await platform.call<Key>('GET', `/v1/me/keys/${key.id}`, { token: tokens.alice });
    expect(fetched.body).toEqual(key);
    expect(fetched.text).not.toContain(secret);
    const stored = await db().selectFrom('virtual_keys').selectAll().where('id', '=', key.id).executeTakeFirstOrThrow();
    expect(stored.secret_hash).toBe(hashSecret(secret));
    expect(JSON.stringify(stored)).not.toContain(secret);
    const principal = await authenticate(bearer(secret));
    expect(principal.body).toEqual({ kind: 'key', key_id: key.id, owner_user_id: key.owner_ref, subject: 'alice' });
  });

  it('refuses a create body the contract does not allow, naming the field', async () => {
    const past = new Date(clock.now().getTime() - 1000).toISOString();
    const refused: [unknown, RegExp][] = [
      [{}, /name/],
      [{ name: '' }, /name/],
      [{ name: 'x'.repeat(129) }, /name/],
      [{ name: 'k', expires_at: past }, /^expires_at: must be in the future/],
      [{ name: 'k', expires_at: 'tomorrow' }, /expires_at/],
      [{ name: 'k', metadata: Object.fromEntries(Array.from({ length: 17 }, (_, index) => [`k${index}`, 'v'])) }, /metadata/],
      [{ name: 'k', metadata: { 'bad key': 'v' } }, /metadata/],
      [{ name: 'k', metadata: { k: 'v'.repeat(257) } }, /metadata/],
      [{ name: 'k', metadata: { k: 1 } }, /metadata/],
      [{ name: 'k', owner_ref: '00000000-0000-4000-8000-000000000000' }, /owner_ref/],
    ];
    for (const [body, message] of refused) {
      const response = await platform.call<{ error: string }>('POST', '/v1/me/keys', { token: tokens.alice, body });
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.body.error).toMatch(message);
    }
    const open = await create(tokens.alice, { name: 'no expiry', expires_at: null });
    expect(open.key).toMatchObject({ expires_at: null, metadata: {} });
  });

  it("lists only the caller's own keys, newest first, and hides another owner's key as 404", async () => {
    const first = await create(tokens.bob, { name: 'bob-1' });
    clock.advance(1000);
    const second = await create(tokens.bob, { name: 'bob-2' });
    await post(tokens.bob, `/v1/me/keys/${first.key.id}/disable`);
    const listed = await platform.call<{ keys: Key[] }>('GET', '/v1/me/keys', { token: tokens.bob });
    expect(listed.body.keys.map((key) => key.name)).toEqual(['bob-2', 'bob-1']);
    expect((await platform.call<{ keys: Key[] }>('GET', '/v1/me/keys?status=disabled', { token: tokens.bob })).body.keys.map((key) => key.id)).toEqual([first.key.id]);
    const unknownStatus = await platform.call<{ error: string }>('GET', '/v1/me/keys?status=sleeping', { token: tokens.bob });
    expect(unknownStatus.status).toBe(400);
    expect(unknownStatus.body.error).toBe('status: must be one of "active", "disabled", "revoked", "expired"');
    const alices = (await platform.call<{ keys: Key[] }>('GET', '/v1/me/keys', { token: tokens.alice })).body.keys;
    expect(alices.some((key) => key.owner_ref === second.key.owner_ref)).toBe(false);

    for (const [method, suffix] of [['GET', ''], ['POST', '/disable'], ['POST', '/enable'], ['POST', '/revoke'], ['POST', '/rotate']] as const) {
      const response = await platform.call<{ error: string }>(method, `/v1/me/keys/${second.key.id}${suffix}`, { token: tokens.alice });
      expect(response.status, suffix).toBe(404);
      expect(response.body.error).toContain(second.key.id);
    }
    expect((await authenticate(bearer(second.secret))).status).toBe(200);
    expect((await platform.call('GET', '/v1/me/keys/not-a-uuid', { token: tokens.bob })).status).toBe(400);
    expect((await platform.call('GET', '/v1/me/keys/00000000-0000-4000-8000-000000000000', { token: tokens.bob })).status).toBe(404);
  });

  it('follows the transition table: disable, re-enable, revoke is permanent', async () => {
    const { key, secret } = await create(tokens.alice, { name: 'transitions' });
    const status = async (response: Promise<CallResult<Key>>) => {
      const answer = await response;
      return [answer.status, answer.body.status];
    };
    expect(await status(post(tokens.alice, `/v1/me/keys/${key.id}/enable`))).toEqual([200, 'active']);
    expect(await status(post(tokens.alice, `/v1/me/keys/${key.id}/disable`))).toEqual([200, 'disabled']);
    expect(openAiCode(await authenticate(bearer(secret)))).toBe('key_disabled');
    expect(await status(post(tokens.alice, `/v1/me/keys/${key.id}/disable`))).toEqual([200, 'disabled']);
    expect(await status(post(tokens.alice, `/v1/me/keys/${key.id}/enable`))).toEqual([200, 'active']);
    expect((await authenticate(bearer(secret))).status).toBe(200);
    expect(await status(post(tokens.alice, `/v1/me/keys/${key.id}/revoke`))).toEqual([200, 'revoked']);
    expect(openAiCode(await authenticate(bearer(secret)))).toBe('key_revoked');
    expect(await status(post(tokens.alice, `/v1/me/keys/${key.id}/revoke`))).toEqual([200, 'revoked']);
    expect(await status(post(tokens.alice, `/v1/me/keys/${key.id}/disable`))).toEqual([200, 'revoked']);
    const enable = await platform.call<{ error: string }>('POST', `/v1/me/keys/${key.id}/enable`, { token: tokens.alice });
    expect(enable.status).toBe(409);
    expect(enable.body.error).toMatch(/revoked/);
    expect((await platform.call('POST', `/v1/keys/${key.id}/enable`, { token: tokens.admin })).status).toBe(409);
    const rotated = await platform.call<Created>('POST', `/v1/me/keys/${key.id}/rotate`, { token: tokens.alice });
    expect(rotated.status).toBe(200);
    expect(rotated.body.key.status).toBe('revoked');
    expect(openAiCode(await authenticate(bearer(rotated.body.secret)))).toBe('key_revoked');
  });

  it('lets admin and auditor read every key, only admin change them, and keeps an admin disable from the owner', async () => {
    const { key, secret } = await create(tokens.bob, { name: 'admin-managed' });
    expect((await platform.call<Key>('GET', `/v1/keys/${key.id}`, { token: tokens.auditor })).body).toEqual(key);
    expect((await platform.call('GET', `/v1/keys/${key.id}`, { token: tokens.directoryAdmin })).status).toBe(403);
    expect((await platform.call('GET', '/v1/keys', { token: tokens.directoryAdmin })).status).toBe(403);
    expect((await platform.call('GET', '/v1/keys', { token: tokens.alice })).status).toBe(403);
    expect((await platform.call('POST', `/v1/keys/${key.id}/disable`, { token: tokens.auditor })).status).toBe(403);
    expect((await platform.call('GET', '/v1/keys/00000000-0000-4000-8000-000000000000', { token: tokens.admin })).status).toBe(404);
    expect((await platform.call('GET', '/v1/keys/nope', { token: tokens.admin })).status).toBe(400);

    expect((await post(tokens.admin, `/v1/keys/${key.id}/disable`)).body.status).toBe('disabled');
    expect(openAiCode(await authenticate(bearer(secret)))).toBe('key_disabled');
    const ownEnable = await platform.call<{ error: string }>('POST', `/v1/me/keys/${key.id}/enable`, { token: tokens.bob });
    expect(ownEnable.status).toBe(409);
    expect(ownEnable.body.error).toMatch(/administrator/);
    expect((await post(tokens.admin, `/v1/keys/${key.id}/enable`)).body.status).toBe('active');
    expect((await authenticate(bearer(secret))).status).toBe(200);
    expect((await post(tokens.admin, `/v1/keys/${key.id}/revoke`)).body.status).toBe('revoked');
    expect(openAiCode(await authenticate(bearer(secret)))).toBe('key_revoked');
  });

  it('pages every key with cursor and before, filtered by owner and status', async () => {
    clock.advance(1000);
    const owner = (await create(tokens.bob, { name: 'paging-0' })).key.owner_ref;
    for (let index = 1; index < 5; index++) {
      clock.advance(1000);
      await create(tokens.bob, { name: `paging-${index}` });
    }
    const all = (await platform.call<Page>('GET', `/v1/keys?owner_ref=${owner}&limit=200`, { token: tokens.admin })).body.keys;
    expect(all.every((key) => key.owner_ref === owner)).toBe(true);
    expect(all.slice(0, 5).map((key) => key.name)).toEqual(['paging-4', 'paging-3', 'paging-2', 'paging-1', 'paging-0']);

    const seen: string[] = [];
    let page = (await platform.call<Page>('GET', `/v1/keys?owner_ref=${owner}&limit=2`, { token: tokens.auditor })).body;
    expect(page.prev_cursor).toBeUndefined();
    const pages = [page];
    seen.push(...page.keys.map((key) => key.id));
    while (page.next_cursor) {
      page = (await platform.call<Page>('GET', `/v1/keys?owner_ref=${owner}&limit=2&cursor=${page.next_cursor}`, { token: tokens.auditor })).body;
      pages.push(page);
      seen.push(...page.keys.map((key) => key.id));
    }
    expect(seen).toEqual(all.map((key) => key.id));
    const back = (await platform.call<Page>('GET', `/v1/keys?owner_ref=${owner}&limit=2&before=${pages[1]?.prev_cursor ?? ''}`, { token: tokens.auditor })).body;
    expect(back.keys.map((key) => key.id)).toEqual(pages[0]?.keys.map((key) => key.id));
    expect(back.prev_cursor).toBeUndefined();
    expect(back.next_cursor).toBeDefined();

    const active = (await platform.call<Page>('GET', `/v1/keys?owner_ref=${owner}&status=active&limit=200`, { token: tokens.admin })).body.keys;
    expect(active.every((key) => key.status === 'active')).toBe(true);
    expect(active.length).toBeGreaterThanOrEqual(5);

    const bad: string[] = [`cursor=${page.next_cursor ?? 'x'}&before=x`, 'cursor=garbage', `cursor=${Buffer.from('["audit","x","y"]').toString('base64url')}`, 'limit=0', 'limit=1.5', 'owner_ref=bob'];
    for (const query of bad) expect((await platform.call('GET', `/v1/keys?${query}`, { token: tokens.admin })).status, query).toBe(400);
    const clamped = await platform.call<Page>('GET', '/v1/keys?limit=5000', { token: tokens.admin });
    expect(clamped.status).toBe(200);
    expect(clamped.body.keys.length).toBeLessThanOrEqual(200);
  });

  it('audits every key write with its actor, never with the secret', async () => {
    const { key, secret } = await create(tokens.alice, { name: 'audited' });
    clock.advance(1000);
    await post(tokens.alice, `/v1/me/keys/${key.id}/disable`);
    clock.advance(1000);
    await post(tokens.alice, `/v1/me/keys/${key.id}/enable`);
    clock.advance(1000);
    const rotated = (await post<Created>(tokens.alice, `/v1/me/keys/${key.id}/rotate`)).body;
    clock.advance(1000);
    await post(tokens.admin, `/v1/keys/${key.id}/revoke`);
    const audit = await platform.call<AuditEvents>('GET', `/v1/audit-events?target_type=key&target_id=${key.id}`, { token: tokens.admin });
    expect(audit.body.events.map((event) => [event.action, event.actor.subject]).reverse()).toEqual([
      ['key.create', 'alice'],
      ['key.disable', 'alice'],
      ['key.enable', 'alice'],
      ['key.rotate', 'alice'],
      ['key.revoke', 'admin'],
    ]);
    expect(audit.body.events.at(-1)?.actor.user_id).toBe(key.owner_ref);
    expect(audit.body.events[0]).toMatchObject({ before: { status: 'active' }, after: { status: 'revoked' } });
    for (const leaked of [secret, rotated.secret, hashSecret(secret), hashSecret(rotated.secret)]) expect(audit.text).not.toContain(leaked);
  });

  it('reads the key from each header the SDKs send, answers 401 in the format of the route, and tells tokens from keys', async () => {
    const { secret } = await create(tokens.alice, { name: 'headers' });
    expect((await authenticate({ 'x-api-key': secret }, 'anthropic')).status).toBe(200);
    expect((await authenticate({ 'x-goog-api-key': secret }, 'gemini')).status).toBe(200);
    expect((await authenticate({}, 'gemini', `?key=${secret}`)).status).toBe(200);
    expect((await authenticate({}, 'openai', `?key=${secret}`)).status).toBe(401);

    const missing = await authenticate({}, 'openai');
    expect(missing.status).toBe(401);
    expect(missing.body).toEqual({ error: { message: expect.stringMatching(/^invalid_api_key: /) as string, type: 'invalid_request_error', param: null, code: 'invalid_api_key' } });
    const wrong = `tyk_${'A'.repeat(43)}`;
    const anthropic = await authenticate({ 'x-api-key': wrong }, 'anthropic');
    expect(anthropic.body).toEqual({ type: 'error', error: { type: 'authentication_error', message: expect.stringMatching(/^invalid_api_key: the API key tyk_AAAAAAAA/) as string }, request_id: anthropic.headers['x-request-id'] });
    const gemini = await authenticate({ 'x-goog-api-key': 'sk-something' }, 'gemini');
    expect(gemini.body).toEqual({
      error: {
        code: 401,
        message: expect.stringMatching(/^invalid_api_key: /) as string,
        status: 'UNAUTHENTICATED',
        details: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'invalid_api_key', domain: 'toolyard' }],
      },
    });
    expect(gemini.text).not.toContain('sk-something');

    const token = await authenticate(bearer(tokens.bob));
    expect(token.body).toEqual({ kind: 'token', subject: 'bob' });
    const forged = await authenticate(bearer(await provider.mint({ sub: 'mallory', forge: true })));
    expect(openAiCode(forged)).toBe('invalid_api_key');
    // the management API takes tokens only
    expect((await platform.call('GET', '/v1/me/keys', { headers: bearer(secret) })).status).toBe(401);
  });

  it("refuses the keys of a deactivated or deleted owner", async () => {
    const { key, secret } = await create(tokens.bob, { name: 'owner-state' });
    const setActive = async (active: boolean) => {
      await db().transaction().execute(async (trx) => {
        await trx.updateTable('users').set({ active }).where('id', '=', key.owner_ref).execute();
        await platform.changes.publish(trx as never, TOPICS.users);
      });
      // what the change feed's handler runs on every replica when users change
      await platform.features.keys.verifier.refresh();
    };
    await setActive(false);
    expect(openAiCode(await authenticate(bearer(secret)))).toBe('user_inactive');
    await setActive(true);
    expect((await authenticate(bearer(secret))).status).toBe(200);

    if (!context) throw new Error('no platform context');
    const hooks = context.hooks.userDeleted;
    const actor = { kind: 'scim' as const, issuer: null, subject: 'scim:okta', claims: {}, provider: null, roles: new Set<never>(), requestId: null };
    await db().transaction().execute(async (trx) => {
      for (const hook of hooks) await hook(trx, key.owner_ref, actor);
    });
    await platform.features.keys.verifier.refresh();
    expect(openAiCode(await authenticate(bearer(secret)))).toBe('key_revoked');
    const revoked = await platform.call<Key>('GET', `/v1/keys/${key.id}`, { token: tokens.admin });
    expect(revoked.body.status).toBe('revoked');
    const audit = await platform.call<AuditEvents>('GET', `/v1/audit-events?action=key.revoke&target_id=${key.id}`, { token: tokens.admin });
    expect(audit.body.events[0]?.actor.subject).toBe('scim:okta');
  });

  it('notes the last use at most once a minute', async () => {
    const { key, secret } = await create(tokens.alice, { name: 'used' });
    const lastUsed = async () => (await db().selectFrom('virtual_keys').select('last_used_at').where('id', '=', key.id).executeTakeFirstOrThrow()).last_used_at?.toISOString() ?? null;
    const until = async (expected: string) => {
      for (let attempt = 0; attempt < 200 && (await lastUsed()) !== expected; attempt++) await new Promise((resolve) => setTimeout(resolve, 10));
      return lastUsed();
    };
    await authenticate(bearer(secret));
    const first = clock.now().toISOString();
    expect(await until(first)).toBe(first);
    clock.advance(30_000);
    await authenticate(bearer(secret));
    clock.advance(31_000);
    await authenticate(bearer(secret));
    const second = clock.now().toISOString();
    expect(await until(second)).toBe(second);
    expect((await platform.call<Key>('GET', `/v1/me/keys/${key.id}`, { token: tokens.alice })).body.last_used_at).toBe(second);
  });

  it('keeps the rotated-out secret working for 24 hours, and ends it at once on a second rotation', async () => {
    const { key, secret: original } = await create(tokens.alice, { name: 'rotating' });
    const rotated = (await post<Created>(tokens.alice, `/v1/me/keys/${key.id}/rotate`)).body;
    expect(rotated.key).toMatchObject({ id: key.id, status: 'active', expires_at: key.expires_at, prefix: rotated.secret.slice(0, 12) });
    expect(rotated.secret).not.toBe(original);
    expect((await authenticate(bearer(original))).status).toBe(200);
    expect((await authenticate(bearer(rotated.secret))).status).toBe(200);
    clock.advance(24 * HOUR - 1);
    expect((await authenticate(bearer(original))).status).toBe(200);
    clock.advance(1);
    expect(openAiCode(await authenticate(bearer(original)))).toBe('invalid_api_key');
    expect((await authenticate(bearer(rotated.secret))).status).toBe(200);

    const again = (await post<Created>(tokens.alice, `/v1/me/keys/${key.id}/rotate`)).body;
    const third = (await post<Created>(tokens.alice, `/v1/me/keys/${key.id}/rotate`)).body;
    expect(openAiCode(await authenticate(bearer(rotated.secret)))).toBe('invalid_api_key');
    expect((await authenticate(bearer(again.secret))).status).toBe(200);
    expect((await authenticate(bearer(third.secret))).status).toBe(200);
    await post(tokens.alice, `/v1/me/keys/${key.id}/disable`);
    expect(openAiCode(await authenticate(bearer(again.secret)))).toBe('key_disabled');
  });

  it('honours expires_at: an expired key is refused, shown as expired, and cannot be re-enabled', async () => {
    const { key, secret } = await create(tokens.alice, { name: 'short-lived', expires_at: new Date(clock.now().getTime() + HOUR).toISOString() });
    expect((await authenticate(bearer(secret))).status).toBe(200);
    clock.advance(HOUR);
    expect(openAiCode(await authenticate(bearer(secret)))).toBe('key_expired');
    expect((await platform.call<Key>('GET', `/v1/me/keys/${key.id}`, { token: tokens.alice })).body.status).toBe('expired');
    const expired = (await platform.call<{ keys: Key[] }>('GET', '/v1/me/keys?status=expired', { token: tokens.alice })).body.keys;
    expect(expired.map((item) => item.id)).toContain(key.id);
    expect((await platform.call<{ keys: Key[] }>('GET', '/v1/me/keys?status=active', { token: tokens.alice })).body.keys.map((item) => item.id)).not.toContain(key.id);
    expect((await post(tokens.alice, `/v1/me/keys/${key.id}/disable`)).body.status).toBe('expired');
    expect((await platform.call('POST', `/v1/me/keys/${key.id}/enable`, { token: tokens.alice })).status).toBe(409);
    expect((await post(tokens.alice, `/v1/me/keys/${key.id}/revoke`)).body.status).toBe('revoked');
  });
});

describe('virtual API keys without a directory identity', () => {
  it('answers 401 to every own-key operation when just-in-time provisioning is off', async () => {
    const provider = await startTestProvider();
    const platform = await createTestPlatform({ config: { auth: oauthWith(provider), directory: { jitProvisioning: false } } });
    try {
      const stranger = await provider.mint({ sub: 'stranger', claims: { roles: ['admin'] } });
      const id = '00000000-0000-4000-8000-000000000000';
      const calls: ['GET' | 'POST', string, unknown?][] = [['POST', '/v1/me/keys', { name: 'k' }], ['GET', '/v1/me/keys'], ['GET', `/v1/me/keys/${id}`], ['POST', `/v1/me/keys/${id}/revoke`], ['POST', `/v1/me/keys/${id}/rotate`]];
      for (const [method, url, body] of calls) {
        const response = await platform.call<{ error: string }>(method, url, { token: stranger, ...(body !== undefined && { body }) });
        expect(response.status, url).toBe(401);
        expect(response.body).toEqual({ error: 'no directory user for this token' });
      }
      // the admin routes need a role, not a directory identity
      expect((await platform.call('GET', '/v1/keys', { token: stranger })).status).toBe(200);
    } finally {
      await platform.dispose();
      await provider.close();
    }
  });
});
