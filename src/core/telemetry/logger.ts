import { pino, type Logger, type LevelWithSilent } from 'pino';

/** JSON logs on stdout; anything that could hold a credential is redacted by key wherever it appears. */
export function createLogger(options: { level?: LevelWithSilent; name?: string } = {}): Logger {
  return pino({
    level: options.level ?? 'info',
    ...(options.name !== undefined && { name: options.name }),
    redact: {
      paths: ['*.authorization', '*.password', '*.token', '*.secret', 'req.headers.authorization', 'headers.authorization'],
      censor: '[redacted]',
    },
  });
}

export const silentLogger: Logger = pino({ level: 'silent' });
