import { connect } from 'node:net';

export interface UpstreamHealthOptions {
  hostname: string;
  port: number;
  clock: () => number;
  /** How long a forwarded answer counts as proof that the upstream is up. */
  freshForMs: number;
  /** How long the TCP probe may take. */
  probeTimeoutMs: number;
}

export interface UpstreamHealth {
  /** The upstream answered a forwarded request (with any status). */
  answered: () => void;
  /** The upstream could not be reached for a forwarded request. */
  unreachable: () => void;
  /** True when the upstream answered recently, otherwise after a TCP connect succeeds now. */
  check: () => Promise<boolean>;
}

/**
 * Tracks whether the upstream is up from the traffic that passes anyway, so /health polled
 * by the supervisor costs a TCP handshake only when the workload has been quiet.
 */
export function createUpstreamHealth(options: UpstreamHealthOptions): UpstreamHealth {
  let lastAnswer: number | undefined;
  let lastFailure: number | undefined;

  const probe = (): Promise<boolean> =>
    new Promise((resolve) => {
      const socket = connect({ host: options.hostname, port: options.port });
      const done = (up: boolean): void => {
        socket.destroy();
        if (up) lastAnswer = options.clock();
        resolve(up);
      };
      socket.setTimeout(options.probeTimeoutMs, () => done(false));
      socket.once('connect', () => done(true));
      socket.once('error', () => done(false));
    });

  return {
    answered: () => {
      lastAnswer = options.clock();
    },
    unreachable: () => {
      lastFailure = options.clock();
    },
    check: async () => {
      if (lastAnswer !== undefined && options.clock() - lastAnswer < options.freshForMs) {
        if (lastFailure === undefined || lastFailure <= lastAnswer) return true;
      }
      return probe();
    },
  };
}
