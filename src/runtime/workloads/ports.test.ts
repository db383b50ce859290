import { createServer, type Server } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createPortAllocator, PORT_RANGE } from './ports.js';

describe('port allocator', () => {
  let busy: Server | undefined;
  afterEach(async () => {
    await new Promise((resolve) => (busy === undefined ? resolve(undefined) : busy.close(resolve)));
    busy = undefined;
  });

  const listen = async (): Promise<number> => {
    busy = createServer();
    await new Promise<void>((resolve) => busy?.listen(0, '127.0.0.1', resolve));
    const address = busy.address();
    return typeof address === 'object' && address !== null ? address.port : 0;
  };

  it('refuses an explicit port something listens on', async () => {
    const port = await listen();
    await expect(createPortAllocator().choose(port, new Map())).rejects.toThrow(`port ${String(port)} is in use`);
  });

  it('refuses an explicit port another workload holds, even while that one is stopped', async () => {
    await expect(createPortAllocator().choose(23_456, new Map([[23_456, 'other']]))).rejects.toThrow('port 23456 is already assigned to workload other');
  });

  it('keeps a free explicit port', async () => {
    const port = await listen();
    await new Promise((resolve) => busy?.close(resolve));
    busy = undefined;
    expect(await createPortAllocator().choose(port, new Map())).toBe(port);
  });

  it('draws a random port in 10000-65535, skipping ones held by other workloads', async () => {
    const draws = [0, 0, 0.5];
    const allocator = createPortAllocator({ random: () => draws.shift() ?? 0.75 });
    const port = await allocator.choose(undefined, new Map([[PORT_RANGE.min, 'other']]));
    expect(port).toBe(PORT_RANGE.min + Math.floor(0.5 * (PORT_RANGE.max - PORT_RANGE.min + 1)));
  });
});
