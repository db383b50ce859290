import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabaseTargets } from '../../src/core/db/database-testing.js';
import { manualClock } from '../helpers/clock.js';
import { createTestPlatform, type TestPlatform } from './helpers.js';

/** Reads the export until the first bytes arrive, then drops the connection; resolves with the status. */
function readFirstChunkAndHangUp(port: number, path: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const outgoing = request({ host: '127.0.0.1', port, path, agent: false }, (response) => {
      response.once('data', () => {
        outgoing.destroy();
        resolve(response.statusCode ?? 0);
      });
    });
    outgoing.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'ECONNRESET') reject(error);
    });
    outgoing.end();
  });
}

describe.each(testDatabaseTargets().map((target) => [target.name, target] as const))('a spend export cut short (%s)', (_name, target) => {
  let platform: TestPlatform;
  let port: number;

  beforeAll(async () => {
    platform = await createTestPlatform({ target, clock: manualClock(new Date('2026-11-25T12:00:00.000Z')), config: { experiments: { spendExport: true } } });
    // 20,000 users of long names on one day: 20 MB of CSV, far more than the socket and the stream buffer hold
    await sql`
      insert into charges (id, event_id, event_time, scope, subject_id, auth_subject, charged_usd, model, provider, interaction_id, period_start, period_end, pricing_catalog_id)
      select gen_random_uuid(), gen_random_uuid(), timestamptz '2026-11-20T10:00:00Z', 'user', repeat('x', 1000) || n, repeat('x', 1000) || n,
        1, 'gpt-4o', 'openai', 'i', timestamptz '2026-11-20T00:00:00Z', timestamptz '2026-11-21T00:00:00Z', gen_random_uuid()
      from generate_series(1, 20000) as n`.execute(platform.database.db);
    await platform.http.listen({ host: '127.0.0.1', port: 0 });
    port = (platform.http.server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await platform.dispose();
  });

  it('ends its database transaction when the client goes away, and the next requests are answered', async () => {
    expect(await readFirstChunkAndHangUp(port, '/v1/spend/export?group_by=user,model')).toBe(200);
    // the embedded database has one connection: a transaction left open would keep this from ever answering
    let open = '1';
    for (let attempt = 0; attempt < 200 && open !== '0'; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 25));
      const { rows } = await sql<{ open: string }>`
        select ((select count(*) from pg_cursors where name = 'read_through')
          + (select count(*) from pg_stat_activity where datname = current_database() and xact_start is not null and pid <> pg_backend_pid()))::text as open`.execute(platform.database.db);
      open = rows[0]?.open ?? '1';
    }
    expect(open).toBe('0');
    const after = await platform.call<{ charges: unknown[] }>('GET', '/v1/charges?limit=1');
    expect(after.status).toBe(200);
    expect(after.body.charges).toHaveLength(1);
  });
});
