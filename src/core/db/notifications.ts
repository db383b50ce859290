import type pg from 'pg';
import type { Logger } from 'pino';

export interface ChangeListener {
  close(): Promise<void>;
}

/**
 * LISTENs on a PostgreSQL channel with a dedicated connection (a pooled one would lose the
 * subscription when released) and reconnects after a lost connection. A notification is a hint to
 * look at the database, never the data itself, so one lost while reconnecting costs only latency: the
 * caller keeps a slower poll as the safety net.
 */
export function listenForChanges(connection: pg.ClientConfig, channel: string, onNotify: () => void, logger: Logger): ChangeListener {
  let client: pg.Client | undefined;
  let closed = false;
  let retry: NodeJS.Timeout | undefined;

  const connect = async () => {
    // pg loads with the first connection: a server on the embedded database never listens
    const { default: pgModule } = await import('pg');
    const next = new pgModule.Client(connection);
    next.on('error', (error) => {
      logger.warn({ err: error }, 'change notifications interrupted; reconnecting');
      void next.end().catch(() => undefined);
      schedule();
    });
    next.on('notification', () => onNotify());
    try {
      await next.connect();
      await next.query(`listen ${pgModule.escapeIdentifier(channel)}`);
      if (closed) {
        await next.end();
        return;
      }
      client = next;
      // changes made while disconnected were not announced
      onNotify();
    } catch (error) {
      logger.warn({ err: error }, 'cannot listen for change notifications; retrying');
      await next.end().catch(() => undefined);
      schedule();
    }
  };
  const schedule = () => {
    client = undefined;
    if (closed || retry) return;
    retry = setTimeout(() => {
      retry = undefined;
      void connect();
    }, 1_000);
    retry.unref();
  };
  void connect();
  return {
    async close() {
      closed = true;
      if (retry) clearTimeout(retry);
      await client?.end().catch(() => undefined);
    },
  };
}
