import { readFileSync } from 'node:fs';
import type { ConnectionOptions } from 'node:tls';
import { Kysely, PostgresDialect, sql } from 'kysely';
// pg loads when a server URL is used: the embedded database never needs it
import type pg from 'pg';
import { PGliteDialect } from './pglite-dialect.js';
import { openDataDir } from './data-dir.js';
import type { PgliteThread } from './pglite-thread.js';

export interface DatabaseOptions {
  /** A PostgreSQL connection string; when set it wins over dataDir. */
  url?: string | undefined;
  /** Data directory of the embedded PGlite database; `memory://` keeps it in memory. */
  dataDir?: string | undefined;
  /** Pool size for a PostgreSQL server. */
  maxConnections?: number;
  /** PEM file of the CA that signs the server's certificate (used with sslmode verify-ca / verify-full / require). */
  caFile?: string | undefined;
  /** File holding the password; it replaces any password in the URL. */
  passwordFile?: string | undefined;
}

export const SSL_MODES = ['disable', 'require', 'verify-ca', 'verify-full'] as const;
export type SslMode = (typeof SSL_MODES)[number];

/** Query parameters pg would read itself; they are taken out of the URL so only the options built here apply. */
const TLS_PARAMS = ['sslmode', 'ssl', 'sslrootcert', 'sslcert', 'sslkey', 'sslpassword', 'uselibpqcompat'];

/**
 * pg reads sslmode from the URL on its own, and since pg 8.x treats `require` as `verify-full`, and
 * settings parsed from the URL override the ones passed beside it. So sslmode (libpq semantics) is
 * mapped to TLS options here and the TLS parameters are removed from the URL handed to pg.
 * disable: no TLS; require: TLS, certificate not checked (checked against caFile when one is given,
 * as libpq does with a root certificate); verify-ca: chain checked, host name not; verify-full: chain
 * and host name checked. Without sslmode there is no TLS unless caFile is set, which means verify-full.
 */
export function sslOptions(sslmode: string | undefined, ca: string | undefined): false | ConnectionOptions {
  const mode = sslmode ?? (ca === undefined ? 'disable' : 'verify-full');
  if (!(SSL_MODES as readonly string[]).includes(mode)) {
    throw new Error(`database.url: sslmode "${mode}" is not supported; use one of ${SSL_MODES.join(', ')}`);
  }
  const withCa = ca === undefined ? {} : { ca };
  switch (mode as SslMode) {
    case 'disable':
      return false;
    case 'require':
      return ca === undefined ? { rejectUnauthorized: false } : { rejectUnauthorized: true, ca, checkServerIdentity: () => undefined };
    case 'verify-ca':
      return { rejectUnauthorized: true, ...withCa, checkServerIdentity: () => undefined };
    case 'verify-full':
      return { rejectUnauthorized: true, ...withCa };
  }
}

/** Splits `url` into the URL pg may see and the TLS settings; the URL is never part of an error message. */
export function splitConnectionUrl(url: string): { url: string; sslmode: string | undefined } {
  const at = url.indexOf('?');
  if (at < 0) return { url, sslmode: undefined };
  const params = new URLSearchParams(url.slice(at + 1));
  for (const name of ['sslrootcert', 'sslcert', 'sslkey', 'sslpassword']) {
    if (params.has(name)) throw new Error(`database.url: the ${name} parameter is not supported; give the server's CA as database.caFile`);
  }
  let sslmode = params.get('sslmode') ?? undefined;
  const ssl = params.get('ssl');
  if (sslmode === undefined && ssl !== null) sslmode = ssl === 'true' || ssl === '1' ? 'verify-full' : 'disable';
  for (const name of TLS_PARAMS) params.delete(name);
  const query = params.toString();
  return { url: url.slice(0, at) + (query === '' ? '' : `?${query}`), sslmode };
}

function readSecretFile(path: string, key: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    throw new Error(`${key}: cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? 'unreadable'})`);
  }
}

/**
 * The pg pool settings for a server URL. A password from a file travels as the `password` query
 * parameter, which pg reads ahead of the URL's user-info (a `password` field beside connectionString
 * would be overwritten by the URL's empty one), so it works for socket URLs without a host too.
 */
export function postgresPoolConfig(options: DatabaseOptions & { url: string }): pg.PoolConfig {
  const { url, sslmode } = splitConnectionUrl(options.url);
  const ca = options.caFile === undefined ? undefined : readSecretFile(options.caFile, 'database.caFile');
  let connectionString = url;
  if (options.passwordFile !== undefined) {
    const password = readSecretFile(options.passwordFile, 'database.passwordFile').replace(/\r?\n$/, '');
    const at = url.indexOf('?');
    const params = new URLSearchParams(at < 0 ? '' : url.slice(at + 1));
    params.set('password', password);
    connectionString = `${at < 0 ? url : url.slice(0, at)}?${params.toString()}`;
  }
  return { connectionString, ssl: sslOptions(sslmode, ca), max: options.maxConnections ?? 10 };
}

export interface Database<DB> {
  db: Kysely<DB>;
  kind: 'postgres' | 'pglite';
  /** Closes the pool, or flushes and closes the embedded engine and ends its thread. */
  close(): Promise<void>;
  /** The pg pool, when there is one. */
  pool?: pg.Pool;
}

const INT8_OID = 20;

/** bigint counts fit in a double; one representation on both engines keeps the stores simple. */
function parsers(pgModule: typeof pg): pg.CustomTypesConfig {
  const types = new pgModule.TypeOverrides();
  types.setTypeParser(INT8_OID, Number);
  return types;
}

export async function createDatabase<DB>(options: DatabaseOptions): Promise<Database<DB>> {
  if (options.url) {
    const { default: pgModule } = await import('pg');
    const pool = new pgModule.Pool({ ...postgresPoolConfig({ ...options, url: options.url }), types: parsers(pgModule) });
    // a lost server connection must not crash the process; queries report the failure instead
    pool.on('error', () => undefined);
    const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
    return { db, kind: 'postgres', pool, close: () => db.destroy() };
  }
  return embeddedDatabase<DB>(await openDataDir(options.dataDir ?? './data/registry'));
}

/** A database over an open embedded engine; closing it closes the engine. */
export function embeddedDatabase<DB>(engine: PgliteThread): Database<DB> {
  const db = new Kysely<DB>({ dialect: new PGliteDialect(engine) });
  return {
    db,
    kind: 'pglite',
    close: async () => {
      await db.destroy();
      await engine.close();
    },
  };
}

export async function ping(db: Kysely<unknown>): Promise<void> {
  await sql`select 1`.execute(db);
}
