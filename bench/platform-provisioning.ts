/**
 * `tsx bench/platform-provisioning.ts`: an identity provider's first sync of 10,000 users and 1,000
 * nested groups through SCIM HTTP requests, 8 at a time (POST /Users, POST /Groups, then PATCH /Groups
 * adding each group's users and child groups), against the real platform app listening on a port, on
 * the embedded database (PGlite in a data directory). Baseline in the same run: the same rows written
 * straight into a fresh embedded database with multi-row INSERTs (the database's own ceiling).
 * Writes bench/results/platform-provisioning.json. Target: the sync in at most 60 s.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { sql } from 'kysely';
import { Agent, request } from 'undici';
import { createDatabase } from '../src/core/db/database.js';
import { createMigrator, migrateToLatest } from '../src/core/db/migrator.js';
import { silentLogger } from '../src/core/telemetry/logger.js';
import { buildPlatformApp } from '../src/platform/app.js';
import { parsePlatformConfig } from '../src/platform/config.js';
import type { PlatformDatabase } from '../src/platform/db.js';
import { PLATFORM_MIGRATION_TABLE, platformMigrations } from '../src/platform/migrations/index.js';
import { startOidcProvider } from './oidc.js';

export interface ProvisioningOptions {
  users?: number;
  groups?: number;
  concurrency?: number;
  /** Where the JSON result goes; none skips the file. */
  resultFile?: string | null;
  log?: (message: string) => void;
}

export interface ProvisioningResult {
  date: string;
  users: number;
  groups: number;
  memberships: number;
  concurrency: number;
  requests: number;
  seconds: { users: number; groups: number; members: number; total: number };
  requestsPerSecond: number;
  baseline: { description: string; seconds: number };
  ratioToBaseline: number;
  targetSeconds: number;
  withinTarget: boolean;
}

const TOKEN = 'bench-scim-token-0123456789abcdef';
const FANOUT = 10;

/** Group i's parent is group floor((i - 1) / FANOUT): a tree about four levels deep. Each user sits in one group. */
function plan(users: number, groups: number) {
  const children = Array.from({ length: groups }, () => [] as number[]);
  for (let index = 1; index < groups; index++) children[Math.floor((index - 1) / FANOUT)]?.push(index);
  const usersOf = Array.from({ length: groups }, () => [] as number[]);
  for (let index = 0; index < users; index++) usersOf[index % groups]?.push(index);
  return { children, usersOf, memberships: users + groups - 1 };
}

/** Runs `tasks` with at most `concurrency` at a time, in order of the list. */
async function pool<T>(items: readonly T[], concurrency: number, task: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const item = items[next++] as T;
      await task(item);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}

async function baseline(users: number, groups: number, now: Date): Promise<number> {
  const directory = await mkdtemp(join(tmpdir(), 'toolyard-bench-baseline-'));
  const database = await createDatabase<PlatformDatabase>({ dataDir: join(directory, 'data') });
  try {
    await migrateToLatest(createMigrator(database.db as never, platformMigrations, PLATFORM_MIGRATION_TABLE));
    const { children, usersOf } = plan(users, groups);
    const userIds = Array.from({ length: users }, () => crypto.randomUUID());
    const groupIds = Array.from({ length: groups }, () => crypto.randomUUID());
    const started = performance.now();
    const chunks = <T>(rows: T[], size = 1000) => Array.from({ length: Math.ceil(rows.length / size) }, (_, index) => rows.slice(index * size, (index + 1) * size));
    await database.db.transaction().execute(async (trx) => {
      for (const chunk of chunks(userIds.map((id, index) => ({ id, user_name: `user${index}@example.com`, display_name: `User ${index}`, email: `user${index}@example.com`, photo_url: null, active: true, source: 'scim:bench', scim_resource: JSON.stringify({ userName: `user${index}@example.com` }), created_at: now, updated_at: now })))) {
        await trx.insertInto('users').values(chunk).execute();
      }
      for (const chunk of chunks(groupIds.map((id, index) => ({ id, name: `group-${index}`, display_name: `group-${index}`, description: '', source: 'scim:bench', external_id: null, scim_resource: '{}', created_at: now, updated_at: now })))) {
        await trx.insertInto('groups').values(chunk).execute();
      }
      const links = groupIds.flatMap((id, index) => [
        ...(usersOf[index] ?? []).map((user) => ({ group_id: id, member_type: 'user' as const, member_id: userIds[user] ?? '', created_at: now })),
        ...(children[index] ?? []).map((child) => ({ group_id: id, member_type: 'group' as const, member_id: groupIds[child] ?? '', created_at: now })),
      ]);
      for (const chunk of chunks(links)) await trx.insertInto('group_members').values(chunk).execute();
    });
    return (performance.now() - started) / 1000;
  } finally {
    await database.close();
    await rm(directory, { recursive: true, force: true });
  }
}

export async function runProvisioningBench(options: ProvisioningOptions = {}): Promise<ProvisioningResult> {
  const users = options.users ?? 10_000;
  const groups = options.groups ?? 1_000;
  const concurrency = options.concurrency ?? 8;
  const log = options.log ?? ((message: string) => console.log(message));
  const scratch = await mkdtemp(join(tmpdir(), 'toolyard-bench-provisioning-'));
  const tokenFile = join(scratch, 'scim.token');
  await writeFile(tokenFile, TOKEN, { mode: 0o600 });
  const oidc = await startOidcProvider('toolyard-platform');
  const config = parsePlatformConfig({
    server: { address: '127.0.0.1:0' },
    database: { dataDir: join(scratch, 'data') },
    auth: { mode: 'oauth', oauth: { providers: [{ name: 'bench', issuerUrl: oidc.issuer, audience: oidc.audience }] } },
    directory: { scimProvisioners: [{ name: 'bench', provider: 'bench', bearerTokenFile: tokenFile }] },
  });
  const app = await buildPlatformApp({ config, logger: silentLogger });
  app.start();
  const address = await app.http.listen({ host: '127.0.0.1', port: 0 });
  const agent = new Agent({ connections: concurrency, pipelining: 1 });
  const base = `${address}/scim/v2/bench`;
  let requests = 0;
  const call = async (method: 'POST' | 'PATCH', path: string, body: unknown): Promise<{ id: string }> => {
    requests++;
    const response = await request(`${base}${path}`, { method, dispatcher: agent, headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/scim+json' }, body: JSON.stringify(body) });
    const text = await response.body.text();
    if (response.statusCode >= 300) throw new Error(`${method} ${path}: ${String(response.statusCode)} ${text}`);
    return JSON.parse(text) as { id: string };
  };

  try {
    const { children, usersOf, memberships } = plan(users, groups);
    const userIds: string[] = new Array<string>(users);
    const groupIds: string[] = new Array<string>(groups);
    const started = performance.now();
    await pool([...userIds.keys()], concurrency, async (index) => {
      const created = await call('POST', '/Users', {
        schemas: ['urn:ietf:params:scim:schemas:core:2.0:User', 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User'],
        userName: `user${index}@example.com`,
        externalId: `ext-${index}`,
        name: { givenName: 'User', familyName: String(index), formatted: `User ${index}` },
        displayName: `User ${index}`,
        emails: [{ value: `user${index}@example.com`, type: 'work', primary: true }],
        active: true,
        'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User': { department: `dept-${index % 50}` },
      });
      userIds[index] = created.id;
    });
    const usersDone = performance.now();
    await pool([...groupIds.keys()], concurrency, async (index) => {
      const created = await call('POST', '/Groups', { schemas: ['urn:ietf:params:scim:schemas:core:2.0:Group'], displayName: `group-${index}`, externalId: `gext-${index}`, members: [] });
      groupIds[index] = created.id;
    });
    const groupsDone = performance.now();
    await pool([...groupIds.keys()], concurrency, async (index) => {
      const value = [...(usersOf[index] ?? []).map((user) => ({ value: userIds[user] })), ...(children[index] ?? []).map((child) => ({ value: groupIds[child] }))];
      await call('PATCH', `/Groups/${groupIds[index] ?? ''}`, { schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'], Operations: [{ op: 'add', path: 'members', value }] });
    });
    const finished = performance.now();

    const [root] = (await sql<{ count: number }>`select count(*)::int as count from group_members`.execute(app.database.db)).rows;
    if (root?.count !== memberships) throw new Error(`expected ${String(memberships)} memberships, found ${String(root?.count)}`);
    const baselineSeconds = await baseline(users, groups, new Date());
    const total = (finished - started) / 1000;
    const result: ProvisioningResult = {
      date: new Date().toISOString(),
      users,
      groups,
      memberships,
      concurrency,
      requests,
      seconds: { users: round((usersDone - started) / 1000), groups: round((groupsDone - usersDone) / 1000), members: round((finished - groupsDone) / 1000), total: round(total) },
      requestsPerSecond: round(requests / total),
      baseline: { description: 'the same rows inserted straight into a fresh embedded database in one transaction (multi-row INSERTs)', seconds: round(baselineSeconds) },
      ratioToBaseline: round(total / baselineSeconds),
      targetSeconds: 60,
      withinTarget: total <= 60,
    };
    log(`SCIM first sync: ${String(users)} users, ${String(groups)} nested groups, ${String(memberships)} memberships, ${String(concurrency)} at a time`);
    log(`  users ${String(result.seconds.users)} s, groups ${String(result.seconds.groups)} s, members ${String(result.seconds.members)} s: total ${String(result.seconds.total)} s (${String(result.requestsPerSecond)} requests/s; target ≤ 60 s: ${result.withinTarget ? 'met' : 'missed'})`);
    log(`  baseline (direct inserts): ${String(result.baseline.seconds)} s; the SCIM sync takes ${String(result.ratioToBaseline)}× as long`);
    if (options.resultFile !== null) {
      const file = options.resultFile ?? new URL('results/platform-provisioning.json', import.meta.url).pathname;
      await mkdir(join(file, '..'), { recursive: true });
      await writeFile(file, `${JSON.stringify(result, null, 2)}\n`);
    }
    return result;
  } finally {
    await agent.close();
    await app.close();
    await oidc.close();
    await rm(scratch, { recursive: true, force: true });
  }
}

const round = (value: number) => Math.round(value * 100) / 100;

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  await runProvisioningBench();
}
