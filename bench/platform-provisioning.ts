/**
 * `tsx bench/platform-provisioning.ts`: an identity provider's first sync of 10,000 users and 1,000
 * nested groups through SCIM HTTP requests, 8 at a time (POST /Users, POST /Groups, then PATCH /Groups
 * adding each group's users and child groups), against the real platform app listening on a port, on
 * the embedded database (PGlite in a data directory). Baseline in the same run: the same rows written
 * straight into a fresh embedded database with multi-row INSERTs (the database's own ceiling).
 * Writes bench/results/platform-provisioning.json. Target: the sync in at most 60 s.
 */
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { sql } from 'kysely';
import { createDatabase } from '../src/core/db/database.js';
import { migrateToLatest } from '../src/core/db/migrator.js';
import { silentLogger } from '../src/core/telemetry/logger.js';
import { buildPlatformApp } from '../src/platform/app.js';
import { parsePlatformConfig } from '../src/platform/config.js';
import type { PlatformDatabase } from '../src/platform/db.js';
import { PLATFORM_MIGRATION_TABLE, platformMigrations } from '../src/platform/migrations/index.js';
import { startOidcProvider } from './oidc.js';
import { plan, type ClientOptions, type ClientResult } from './platform-provisioning-client.js';

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

const CLIENT = new URL('platform-provisioning-client.ts', import.meta.url).pathname;

/** The identity provider in a process of its own (tsx, IPC), so it does not share the platform's event loop. */
function runClient(options: ClientOptions): Promise<ClientResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', CLIENT, JSON.stringify(options)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    let result: ClientResult | undefined;
    child.once('message', (message) => (result = message as ClientResult));
    child.once('error', reject);
    child.once('exit', (code) => (result ? resolve(result) : reject(new Error(`the SCIM client exited with ${String(code)} before reporting`))));
  });
}

async function baseline(users: number, groups: number, now: Date): Promise<number> {
  const directory = await mkdtemp(join(tmpdir(), 'toolyard-bench-baseline-'));
  const database = await createDatabase<PlatformDatabase>({ dataDir: join(directory, 'data') });
  try {
    await migrateToLatest({ db: database.db as never, migrations: platformMigrations, table: PLATFORM_MIGRATION_TABLE });
    const { children, usersOf } = plan(users, groups, FANOUT);
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
  const base = `${address}/scim/v2/bench`;
  try {
    const { memberships } = plan(users, groups, FANOUT);
    const sync = await runClient({ base, token: TOKEN, users, groups, concurrency, fanout: FANOUT });
    const [root] = (await sql<{ count: number }>`select count(*)::int as count from group_members`.execute(app.database.db)).rows;
    if (root?.count !== memberships) throw new Error(`expected ${String(memberships)} memberships, found ${String(root?.count)}`);
    const baselineSeconds = await baseline(users, groups, new Date());
    const total = sync.seconds.total;
    const result: ProvisioningResult = {
      date: new Date().toISOString(),
      users,
      groups,
      memberships,
      concurrency,
      requests: sync.requests,
      seconds: sync.seconds,
      requestsPerSecond: round(sync.requests / total),
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
    await app.close();
    await oidc.close();
    await rm(scratch, { recursive: true, force: true });
  }
}

const round = (value: number) => Math.round(value * 100) / 100;

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  await runProvisioningBench();
}
