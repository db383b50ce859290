import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabaseTargets } from '../../src/core/db/database-testing.js';
import { silentLogger } from '../../src/core/telemetry/logger.js';
import { buildPlatformApp, type PlatformApp } from '../../src/platform/app.js';
import { AUTH_ONLY_PATH, registerAuthOnlyRoutes } from '../../src/platform/keys/gateway-auth-testing.js';
import type { OidcProvider } from '../helpers/oidc-provider.js';
import { TOPICS } from '../../src/platform/context.js';
import type { PlatformDatabase } from '../../src/platform/db.js';
import { nextChangeSeq } from '../../src/platform/keys/store.js';
import { createTestPlatform, oauthWith, platformConfig, startTestProvider } from './helpers.js';

/** The answer of a replica's authentication step to a key: 200, or the refusal code. */
async function verdict(app: PlatformApp, secret: string): Promise<string> {
  const response = await app.http.inject({ method: 'GET', url: `${AUTH_ONLY_PATH}/openai`, headers: { authorization: `Bearer ${secret}` } });
  if (response.statusCode === 200) return 'accepted';
  return (JSON.parse(response.body) as { error: { code: string } }).error.code;
}

/** Asks until the replica answers `expected` (the change reaches it through PostgreSQL's notification). */
async function eventually(app: PlatformApp, secret: string, expected: string): Promise<string> {
  let answer = await verdict(app, secret);
  for (let attempt = 0; attempt < 500 && answer !== expected; attempt++) {
    await new Promise((resolve) => setTimeout(resolve, 10));
    answer = await verdict(app, secret);
  }
  return answer;
}

// three replicas need a database they share: PostgreSQL (PGlite belongs to one process)
describe.each(testDatabaseTargets().filter((target) => target.name === 'postgres').map((target) => [target.name, target] as const))('virtual keys on three replicas (%s)', (_name, target) => {
  let provider: OidcProvider;
  let created: Awaited<ReturnType<typeof target.create>>;
  const replicas: PlatformApp[] = [];
  let alice: string;

  beforeAll(async () => {
    provider = await startTestProvider();
    created = await target.create();
    for (let index = 0; index < 3; index++) {
      // the poll safety net is slowed to a minute: what the replicas learn, they learn from NOTIFY
      const config = platformConfig({ auth: oauthWith(provider), database: { url: created.url, maxConnections: 3 } });
      const app = await buildPlatformApp({
        config,
        ...(index === 0 && { database: created.database as never }),
        logger: silentLogger,
        jwksCooldownMs: 0,
        changePollMs: 60_000,
        extraRoutes: (context, features) => registerAuthOnlyRoutes(context.http, features.keys.authentication),
      });
      app.start();
      replicas.push(app);
    }
    alice = await provider.mint({ sub: 'alice' });
  });
  afterAll(async () => {
    for (const app of replicas) await app.close();
    await created.drop();
    await provider.close();
  });

  const [first, second, third] = [0, 1, 2].map((index) => () => {
    const app = replicas[index];
    if (!app) throw new Error(`no replica ${index}`);
    return app;
  }) as [() => PlatformApp, () => PlatformApp, () => PlatformApp];

  const createKey = async (on: PlatformApp) => {
    const response = await on.http.inject({ method: 'POST', url: '/v1/me/keys', headers: { authorization: `Bearer ${alice}` }, payload: { name: 'replicated' } });
    expect(response.statusCode).toBe(201);
    return JSON.parse(response.body) as { key: { id: string }; secret: string };
  };
  const act = async (on: PlatformApp, id: string, action: string) => {
    const response = await on.http.inject({ method: 'POST', url: `/v1/me/keys/${id}/${action}`, headers: { authorization: `Bearer ${alice}` } });
    expect(response.statusCode).toBe(200);
  };

  it('accepts a key on every replica, and refuses it on every replica once one revokes it', async () => {
    const { key, secret } = await createKey(first());
    expect(await verdict(first(), secret)).toBe('accepted');
    expect(await eventually(second(), secret, 'accepted')).toBe('accepted');
    expect(await eventually(third(), secret, 'accepted')).toBe('accepted');

    await act(first(), key.id, 'revoke');
    expect(await verdict(first(), secret)).toBe('key_revoked');
    expect(await eventually(second(), secret, 'key_revoked')).toBe('key_revoked');
    expect(await eventually(third(), secret, 'key_revoked')).toBe('key_revoked');
  });

  it('carries a disable and a re-enable on another replica to the other two', async () => {
    const { key, secret } = await createKey(second());
    expect(await eventually(first(), secret, 'accepted')).toBe('accepted');
    expect(await eventually(third(), secret, 'accepted')).toBe('accepted');
    await act(third(), key.id, 'disable');
    expect(await eventually(first(), secret, 'key_disabled')).toBe('key_disabled');
    expect(await eventually(second(), secret, 'key_disabled')).toBe('key_disabled');
    await act(first(), key.id, 'enable');
    expect(await eventually(second(), secret, 'accepted')).toBe('accepted');
    expect(await eventually(third(), secret, 'accepted')).toBe('accepted');
  });

  it('ends the grace of a rotated-out secret everywhere on a second rotation', async () => {
    const { key, secret } = await createKey(first());
    await act(second(), key.id, 'rotate');
    expect(await eventually(third(), secret, 'accepted')).toBe('accepted');
    await act(second(), key.id, 'rotate');
    expect(await eventually(first(), secret, 'invalid_api_key')).toBe('invalid_api_key');
    expect(await eventually(third(), secret, 'invalid_api_key')).toBe('invalid_api_key');
  });
});

describe('virtual keys written by another replica (embedded database)', () => {
  it('are read through the change feed poll, the safety net behind notifications', async () => {
    let db: Kysely<PlatformDatabase> | undefined;
    const platform = await createTestPlatform({
      changePollMs: 20,
      extraRoutes: (context, features) => {
        db = context.db;
        registerAuthOnlyRoutes(context.http, features.keys.authentication);
      },
    });
    try {
      platform.start();
      const response = await platform.call<{ key: { id: string }; secret: string }>('POST', '/v1/me/keys', { body: { name: 'polled' } });
      expect(await verdict(platform, response.body.secret)).toBe('accepted');
      if (!db) throw new Error('no database');
      // what another replica's revoke writes: the row, its change number and the topic's generation
      await db.transaction().execute(async (trx) => {
        await trx.updateTable('virtual_keys').set({ state: 'revoked', change_seq: await nextChangeSeq(trx) }).where('id', '=', response.body.key.id).execute();
        await platform.changes.publish(trx as never, TOPICS.keys);
      });
      expect(await eventually(platform, response.body.secret, 'key_revoked')).toBe('key_revoked');
    } finally {
      await platform.dispose();
    }
  });
});
