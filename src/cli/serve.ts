import type { Logger } from 'pino';
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
