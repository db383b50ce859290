import { sql, type Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Database } from './database.js';
import { listenForChanges, type ChangeListener } from './notifications.js';

/*
 * How one replica tells the others that something they cache changed. A write bumps the topic's
 * generation in `change_generations` and NOTIFYs the channel, both in the writer's transaction, so the
 * news leaves only with a commit. Each replica LISTENs (a PostgreSQL server) and also polls the
 * generations (the safety net for a notification lost while reconnecting, and the only way on the
 * embedded engine, which one process owns). Handlers run when a topic's generation moved.
 */

export const CHANGE_CHANNEL = 'toolyard_changes';

export interface ChangeFeed {
  /** Announces a change of `topic`, inside the writer's transaction. */
  publish(trx: Kysely<unknown>, topic: string): Promise<void>;
  /** Runs `handler` whenever another replica (or this one) changed `topic`. */
  subscribe(topic: string, handler: () => void): void;
  start(): void;
  close(): Promise<void>;
  /** Reads the generations now and runs the handlers of the topics that moved (tests, and after a local write). */
  check(): Promise<void>;
}

export interface ChangeFeedOptions {
  database: Database<unknown>;
  db: Kysely<unknown>;
  logger: Logger;
  pollMs: number;
}

export const CHANGE_GENERATIONS_DDL = sql`create table if not exists change_generations (topic text primary key, generation bigint not null)`;

export function createChangeFeed(options: ChangeFeedOptions): ChangeFeed {
  const { db, logger } = options;
  const handlers = new Map<string, (() => void)[]>();
  const seen = new Map<string, number>();
  let timer: NodeJS.Timeout | undefined;
  let listener: ChangeListener | undefined;
  let checking: Promise<void> | undefined;
  let initialized = false;

  const run = (topic: string) => {
    for (const handler of handlers.get(topic) ?? []) {
      try {
        handler();
      } catch (error) {
        logger.warn({ err: error, topic }, 'a change handler failed');
      }
    }
  };

  const readGenerations = async () => {
    const rows = await sql<{ topic: string; generation: number }>`select topic, generation from change_generations`.execute(db);
    for (const { topic, generation } of rows.rows) {
      const before = seen.get(topic);
      seen.set(topic, generation);
      // the first read only learns where each topic stands; later reads act on what moved or appeared
      if (initialized && before !== generation) run(topic);
    }
    initialized = true;
  };

  const check = () => {
    // one read at a time; a check asked for during one waits for it, then reads again
    const next = (checking ?? Promise.resolve()).then(readGenerations).catch((error: unknown) => logger.warn({ err: error }, 'cannot read change generations'));
    checking = next;
    return next;
  };

  return {
    async publish(trx, topic) {
      // one statement: it runs in every directory and key write, where each round trip counts
      await sql`with bumped as (
          insert into change_generations (topic, generation) values (${topic}, 1)
          on conflict (topic) do update set generation = change_generations.generation + 1
          returning topic)
        select pg_notify(${CHANGE_CHANNEL}, topic) from bumped`.execute(trx);
    },
    subscribe(topic, handler) {
      handlers.set(topic, [...(handlers.get(topic) ?? []), handler]);
    },
    start() {
      if (timer) return;
      void check();
      timer = setInterval(() => void check(), options.pollMs);
      timer.unref();
      if (options.database.pool) listener = listenForChanges(options.database.pool.options, CHANGE_CHANNEL, () => void check(), logger);
    },
    async close() {
      if (timer) clearInterval(timer);
      timer = undefined;
      await listener?.close();
      await checking;
    },
    check,
  };
}
