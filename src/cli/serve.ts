import type { Logger } from 'pino';
import type { DatabaseConfig } from '../core/config/database.js';
import type { Database } from '../core/db/database.js';
import type { PreparedPgliteThread } from '../core/db/pglite-thread.js';
import { parseDuration } from '../core/config/duration.js';
import { ConfigError } from '../core/config/load.js';

export function splitAddress(address: string, key = 'server.address'): { host: string; port: number } {
  const match = /^\[?([^\]]*)\]?:(\d{1,5})$/.exec(address);
  const port = Number(match?.[2]);
  if (!match || port > 65535) throw new ConfigError([`${key}: "${address}" must be HOST:PORT (example: 127.0.0.1:8080)`]);
  return { host: match[1] ?? '127.0.0.1', port };
}

export interface Servable {
  drain(): void;
  close(): Promise<void>;
}

/**
 * Stops a server on a signal. SIGTERM comes from an orchestrator: keep serving while /readiness tells the
 * load balancer to stop sending, then close. Ctrl-C (SIGINT) closes at once.
 */
export function stopOnSignals(app: Servable, options: { logger: Logger; shutdownDelay: string }): void {
  const stop = async (signal: string) => {
    const delay = signal === 'SIGTERM' ? (parseDuration(options.shutdownDelay) ?? 0) : 0;
    options.logger.info({ signal, delayMs: delay }, 'shutting down');
    app.drain();
    await new Promise((resolve) => setTimeout(resolve, delay));
    await app.close();
    process.exit(0);
  };
  process.once('SIGINT', (signal) => void stop(signal));
  process.once('SIGTERM', (signal) => void stop(signal));
}

/**
 * The embedded database, started before the server's modules load: its thread (prepared before the
 * configuration was read, see preparePgliteThread) opens PGlite, the longest part of a start, while this
 * one loads the rest. Undefined for PostgreSQL, which the service host opens (and may first migrate as
 * another user). The server must close it: a host closes only what it opened.
 */
export async function startEmbeddedDatabase<DB>(database: DatabaseConfig, prepared: PreparedPgliteThread): Promise<Database<DB> | undefined> {
  if (database.url !== undefined) {
    await prepared.cancel();
    return undefined;
  }
  const opening = import('../core/db/data-dir.js')
    .then(({ openDataDir }) => openDataDir(database.dataDir, prepared))
    .catch((error: unknown) => {
      const { syscall, code } = error as NodeJS.ErrnoException;
      if (syscall === 'mkdir') throw new ConfigError([`database.dataDir: cannot create ${database.dataDir} (${code ?? 'error'})`]);
      if (syscall === 'scandir') throw new ConfigError([`database.dataDir: cannot read ${database.dataDir} (${code ?? 'error'})`]);
      throw error;
    });
  const [engine, { embeddedDatabase }] = await Promise.all([opening, import('../core/db/database.js')]);
  return embeddedDatabase<DB>(engine);
}

/** The server, closing `database` after itself. */
export function closingDatabase(app: Servable, database: Pick<Database<unknown>, 'close'> | undefined): Servable {
  return {
    drain: () => app.drain(),
    close: async () => {
      await app.close();
      await database?.close();
    },
  };
}
