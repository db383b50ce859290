export interface BackoffOptions {
  /** Wait before the first restart; doubles with each further try. */
  initialMs: number;
  maxMs: number;
  /** Restarts allowed before giving up, counted since the server last stayed up `healthyMs`. */
  maxTries: number;
  /** A server that ran this long is healthy again: the next crash starts counting from one. */
  healthyMs: number;
}

export const DEFAULT_BACKOFF: BackoffOptions = { initialMs: 5_000, maxMs: 60_000, maxTries: 10, healthyMs: 30_000 };

export type RestartDecision = { restart: true; delayMs: number; attempt: number } | { restart: false; attempts: number };

export interface RestartBackoff {
  /** The server (re)started at `now` (ms). */
  started: (now: number) => void;
  /** The server exited at `now` (ms): restart after a delay, or give up. */
  exited: (now: number) => RestartDecision;
}

export function createRestartBackoff(options: BackoffOptions): RestartBackoff {
  let tries = 0;
  let startedAt = 0;
  return {
    started: (now) => {
      startedAt = now;
    },
    exited: (now) => {
      if (now - startedAt >= options.healthyMs) tries = 0;
      if (tries >= options.maxTries) return { restart: false, attempts: tries };
      tries += 1;
      return { restart: true, delayMs: Math.min(options.initialMs * 2 ** (tries - 1), options.maxMs), attempt: tries };
    },
  };
}
