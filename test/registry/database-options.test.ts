import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import pg from 'pg';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase, postgresPoolConfig, sslOptions, splitConnectionUrl } from '../../src/core/db/database.js';
import { buildRegistryApp, migrateRegistryDatabase } from '../../src/registry/app.js';
import { REGISTRY_MIGRATION_TABLE } from '../../src/registry/migrations/index.js';
import { runCli } from '../helpers/cli.js';
import { registryConfig } from '../helpers/registry.js';

const PG_URL = process.env.TOOLYARD_TEST_DATABASE_URL ?? '';
const SECRET = `s3cr#t/${randomUUID()}?&=`;

/** What pg itself makes of a pool configuration: the settings a connection would really use. */
function resolved(config: pg.PoolConfig): pg.Client & { ssl: unknown; password: string } {
  return new pg.Client(config) as pg.Client & { ssl: unknown; password: string };
}

function poolOf(database: { pool?: pg.Pool | undefined }): pg.Pool {
  if (!database.pool) throw new Error('expected a PostgreSQL pool');
  return database.pool;
}

function withDatabase(url: string, database: string, user?: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  if (user !== undefined) parsed.username = user;
  return parsed.toString();
}

async function adminQuery(url: string, statements: string[]): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    for (const statement of statements) await client.query(statement);
  } finally {
    await client.end();
  }
}

function captureLogs() {
  let text = '';
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      text += chunk.toString();
      done();
    },
  });
  return { logger: pino({ level: 'trace' }, stream), text: () => text };
}

let dir: string;
let passwordFile: string;
let caFile: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'toolyard-db-options-'));
  passwordFile = join(dir, 'password');
  await writeFile(passwordFile, `${SECRET}\n`);
  caFile = join(dir, 'ca.pem');
  await writeFile(caFile, '-----BEGIN CERTIFICATE-----\nMIIBtest\n-----END CERTIFICATE-----\n');
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('database.passwordFile', () => {
  it('fills the password of the connection, replacing one in the URL, and keeps the other settings', () => {
    for (const url of ['postgres://app@db.internal:6543/catalog', 'postgres://app:old@db.internal:6543/catalog?application_name=toolyard']) {
      const client = resolved(postgresPoolConfig({ url, passwordFile }));
      expect(client.password).toBe(SECRET);
      expect(client.user).toBe('app');
      expect(client.host).toBe('db.internal');
      expect(client.port).toBe(6543);
      expect(client.database).toBe('catalog');
    }
  });

  it('works for a socket URL without a host name', () => {
    const client = resolved(postgresPoolConfig({ url: 'postgres://app@/catalog?host=/var/run/postgresql', passwordFile }));
    expect(client.password).toBe(SECRET);
    expect(client.host).toBe('/var/run/postgresql');
  });

  it('names the file, not its content, when it cannot be read', () => {
    expect(() => postgresPoolConfig({ url: 'postgres://app@db/catalog', passwordFile: join(dir, 'missing') })).toThrow(
      /database\.passwordFile: cannot read .*missing \(ENOENT\)/,
    );
  });

  it('never shows the password in logs or errors when the server cannot be reached', async () => {
    const { logger, text } = captureLogs();
    const config = registryConfig({ database: { url: 'postgres://app@127.0.0.1:1/catalog', passwordFile } });
    const error = await buildRegistryApp({ config, logger, backgroundSync: false }).then(
      async (app) => {
        await app.close();
        return undefined;
      },
      (caught: unknown) => caught as Error,
    );
    expect(error).toBeInstanceOf(Error);
    const shown = `${String(error)}\n${error?.stack ?? ''}\n${JSON.stringify(error)}\n${text()}`;
    expect(shown).not.toContain(SECRET);
    expect(shown).not.toContain(encodeURIComponent(SECRET));
  });

  it.runIf(PG_URL !== '')('reaches the local PostgreSQL, and the password stays out of the logs', async () => {
    const { logger, text } = captureLogs();
    const name = `toolyard_test_${randomUUID().replace(/-/g, '').slice(0, 16)}`;
    await adminQuery(PG_URL, [`create database ${name}`]);
    try {
      const config = registryConfig({ database: { url: withDatabase(PG_URL, name), passwordFile } });
      const app = await buildRegistryApp({ config, logger, backgroundSync: false });
      try {
        const ready = await app.http.inject({ method: 'GET', url: '/readiness' });
        expect(ready.statusCode).toBe(200);
        expect(resolved(poolOf(app.database).options).password).toBe(SECRET);
      } finally {
        await app.close();
      }
      expect(text()).toContain('database migrated');
      expect(text()).not.toContain(SECRET);
      expect(text()).not.toContain(encodeURIComponent(SECRET));
    } finally {
      await adminQuery(PG_URL, [`drop database if exists ${name} with (force)`]);
    }
  });
});

describe('sslmode and database.caFile', () => {
  it('maps sslmode to the TLS options of the pool (libpq meanings, not pg 8 aliases)', () => {
    const ca = 'PEM';
    expect(sslOptions(undefined, undefined)).toBe(false);
    expect(sslOptions('disable', ca)).toBe(false);
    expect(sslOptions('require', undefined)).toEqual({ rejectUnauthorized: false });
    const requireWithCa = sslOptions('require', ca);
    expect(requireWithCa).toMatchObject({ rejectUnauthorized: true, ca });
    expect(requireWithCa && requireWithCa.checkServerIdentity?.('db', {} as never)).toBeUndefined();
    const verifyCa = sslOptions('verify-ca', ca);
    expect(verifyCa).toMatchObject({ rejectUnauthorized: true, ca });
    expect(verifyCa && typeof verifyCa.checkServerIdentity).toBe('function');
    expect(sslOptions('verify-full', ca)).toEqual({ rejectUnauthorized: true, ca });
    expect(sslOptions('verify-full', undefined)).toEqual({ rejectUnauthorized: true });
    // a CA file without sslmode asks for a verified connection
    expect(sslOptions(undefined, ca)).toEqual({ rejectUnauthorized: true, ca });
  });

  it('rejects modes that pg cannot honour and certificate parameters in the URL', () => {
    expect(() => sslOptions('prefer', undefined)).toThrow('sslmode "prefer" is not supported; use one of disable, require, verify-ca, verify-full');
    expect(() => splitConnectionUrl('postgres://u:pw@h/db?sslrootcert=/ca.pem')).toThrow(/sslrootcert parameter is not supported.*caFile/);
    expect(() => splitConnectionUrl('postgres://u:pw@h/db?sslrootcert=/ca.pem')).not.toThrow(/pw/);
  });

  it('takes the TLS parameters out of the URL so pg cannot override the options built here', () => {
    expect(splitConnectionUrl('postgres://u@h/db?sslmode=require&application_name=x')).toEqual({
      url: 'postgres://u@h/db?application_name=x',
      sslmode: 'require',
    });
    expect(splitConnectionUrl('postgres://u@h/db?ssl=true')).toEqual({ url: 'postgres://u@h/db', sslmode: 'verify-full' });
    expect(splitConnectionUrl('postgres://u@h/db')).toEqual({ url: 'postgres://u@h/db', sslmode: undefined });

    // pg alone would turn sslmode=require into a verifying {} and ignore ssl given beside the URL
    const required = resolved(postgresPoolConfig({ url: 'postgres://u@h/db?sslmode=require' }));
    expect(required.ssl).toEqual({ rejectUnauthorized: false });
    const disabled = resolved(postgresPoolConfig({ url: 'postgres://u@h/db?sslmode=disable', caFile }));
    expect(disabled.ssl).toBe(false);
    const verified = resolved(postgresPoolConfig({ url: 'postgres://u@h/db?sslmode=verify-full', caFile }));
    expect(verified.ssl).toEqual({ rejectUnauthorized: true, ca: '-----BEGIN CERTIFICATE-----\nMIIBtest\n-----END CERTIFICATE-----\n' });
  });

  it('reads the CA file and names it when it is missing', () => {
    expect(() => postgresPoolConfig({ url: 'postgres://u@h/db?sslmode=verify-ca', caFile: join(dir, 'nope.pem') })).toThrow(
      /database\.caFile: cannot read .*nope\.pem/,
    );
  });

  it.runIf(PG_URL !== '')('asks the server for TLS when sslmode requires it (the local server has none)', async () => {
    const required = new URL(PG_URL);
    required.searchParams.set('sslmode', 'require');
    const database = await createDatabase({ url: required.toString(), maxConnections: 1 });
    try {
      await expect(poolOf(database).query('select 1')).rejects.toThrow(/does not support SSL/);
    } finally {
      await database.close();
    }
    required.searchParams.set('sslmode', 'disable');
    const plain = await createDatabase({ url: required.toString(), maxConnections: 1 });
    try {
      await expect(poolOf(plain).query('select 1 as one')).resolves.toMatchObject({ rows: [{ one: 1 }] });
    } finally {
      await plain.close();
    }
  });
});

describe('database.migrationUrl', () => {
  it('is used for the migrations: an unreachable migration server fails them while url is fine', async () => {
    const unreachable = { url: 'postgres://app@127.0.0.1:2/catalog', dataDir: 'memory://', maxConnections: 1, migrationUrl: 'postgres://owner@127.0.0.1:1/catalog' };
    await expect(migrateRegistryDatabase(unreachable)).rejects.toThrow(/127\.0\.0\.1:1\b/);
    await expect(migrateRegistryDatabase({ dataDir: 'memory://', maxConnections: 1, migrationUrl: 'postgres://owner@h/db' })).rejects.toThrow(
      'database.migrationUrl: set database.url too',
    );
  });

  describe.runIf(PG_URL !== '')('on the local PostgreSQL, with an owner role and a server role without DDL rights', () => {
    const suffix = randomUUID().replace(/-/g, '').slice(0, 12);
    const name = `toolyard_test_${suffix}`;
    const appRole = `toolyard_app_${suffix}`;
    let ownerUrl: string;
    let appUrl: string;

    beforeAll(async () => {
      await adminQuery(PG_URL, [`create database ${name}`, `create role ${appRole} login`]);
      ownerUrl = withDatabase(PG_URL, name);
      appUrl = withDatabase(PG_URL, name, appRole);
      await adminQuery(ownerUrl, [
        'revoke create on schema public from public',
        `grant usage on schema public to ${appRole}`,
        `alter default privileges in schema public grant select, insert, update, delete on tables to ${appRole}`,
        `alter default privileges in schema public grant usage, select on sequences to ${appRole}`,
      ]);
    });
    afterAll(async () => {
      await adminQuery(PG_URL, [`drop database if exists ${name} with (force)`, `drop role if exists ${appRole}`]);
    });

    it('the server user alone cannot migrate', async () => {
      await expect(migrateRegistryDatabase({ url: appUrl, dataDir: 'memory://', maxConnections: 1 })).rejects.toThrow(/permission denied/);
    });

    it('`toolyard registry migrate` applies the migrations as the migrationUrl user', async () => {
      const file = join(dir, 'migrate.yaml');
      await writeFile(file, `database:\n  url: ${appUrl}\n  migrationUrl: ${ownerUrl}\nauth: { mode: anonymous }\n`);
      const { code, output } = await runCli(['registry', 'migrate', '--config', file]);
      expect(output).toContain('applied: ');
      expect(code).toBe(0);
      const owner = new pg.Client({ connectionString: ownerUrl });
      await owner.connect();
      try {
        const { rows } = await owner.query<{ tableowner: string }>('select tableowner from pg_tables where tablename = $1', [REGISTRY_MIGRATION_TABLE]);
        expect(rows).toEqual([{ tableowner: new URL(PG_URL).username }]);
      } finally {
        await owner.end();
      }
    });

    it('the server then runs as the unprivileged user and is ready', async () => {
      const config = registryConfig({ database: { url: appUrl, migrationUrl: ownerUrl } });
      const app = await buildRegistryApp({ config, logger: pino({ level: 'silent' }), backgroundSync: false });
      try {
        expect((await app.http.inject({ method: 'GET', url: '/readiness' })).statusCode).toBe(200);
        const { rows } = await poolOf(app.database).query<{ user: string }>('select current_user as user');
        expect(rows).toEqual([{ user: appRole }]);
      } finally {
        await app.close();
      }
    });
  });
});

describe('database.dataDir', () => {
  it('`toolyard registry serve` names the key and the reason when the data directory cannot be created', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'toolyard-datadir-'));
    try {
      const notADirectory = join(dir, 'a-file');
      await writeFile(notADirectory, 'not a directory');
      const file = join(dir, 'serve.yaml');
      await writeFile(file, `server: { address: "127.0.0.1:0" }\ndatabase: { dataDir: ${JSON.stringify(join(notADirectory, 'data'))} }\nauth: { mode: anonymous }\n`);
      const { code, output } = await runCli(['registry', 'serve', '--config', file]);
      expect(output).toContain(`database.dataDir: cannot create ${join(notADirectory, 'data')} (ENOTDIR)`);
      expect(code).toBe(2);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
