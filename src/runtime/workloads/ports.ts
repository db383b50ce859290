import { createServer } from 'node:net';
import { InvalidInputError } from '../../core/errors.js';

export const PORT_RANGE = { min: 10_000, max: 65_535 } as const;

export interface PortAllocatorOptions {
  host?: string;
  /** A number in [0, 1); injectable so tests can force collisions. */
  random?: () => number;
}

export interface PortAllocator {
  /** Whether a listener can bind the port on the loopback host right now. */
  isFree: (port: number) => Promise<boolean>;
  /**
   * The requested port when it is free and no other workload's configuration holds it (400 otherwise),
   * else a random free port in 10000-65535 that no other workload holds. `taken` maps port → workload.
   */
  choose: (requested: number | undefined, taken: ReadonlyMap<number, string>) => Promise<number>;
}

const ATTEMPTS = 200;

export function createPortAllocator(options: PortAllocatorOptions = {}): PortAllocator {
  const host = options.host ?? '127.0.0.1';
  const random = options.random ?? Math.random;

  const isFree = (port: number): Promise<boolean> =>
    new Promise((resolve) => {
      const server = createServer();
      server.once('error', () => resolve(false));
      server.listen({ port, host, exclusive: true }, () => server.close(() => resolve(true)));
    });

  return {
    isFree,
    choose: async (requested, taken) => {
      if (requested !== undefined) {
        const holder = taken.get(requested);
        if (holder !== undefined) throw new InvalidInputError(`port ${String(requested)} is already assigned to workload ${holder}`);
        if (!(await isFree(requested))) throw new InvalidInputError(`port ${String(requested)} is in use`);
        return requested;
      }
      for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
        const port = PORT_RANGE.min + Math.floor(random() * (PORT_RANGE.max - PORT_RANGE.min + 1));
        if (!taken.has(port) && (await isFree(port))) return port;
      }
      throw new Error(`no free port found in ${String(PORT_RANGE.min)}-${String(PORT_RANGE.max)} after ${String(ATTEMPTS)} tries`);
    },
  };
}
