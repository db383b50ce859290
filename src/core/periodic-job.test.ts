import { describe, expect, it, vi } from 'vitest';
import { silentLogger } from './telemetry/logger.js';
import { createPeriodicJob } from './periodic-job.js';

describe('periodic job', () => {
  it('never starts a pass while one is under way, and stop waits for it', async () => {
    vi.useFakeTimers();
    try {
      let passes = 0;
      let finish: () => void = () => undefined;
      const job = createPeriodicJob({
        runOnce: () => {
          passes += 1;
          return new Promise<void>((resolve) => (finish = resolve));
        },
        intervalMs: 10,
        logger: silentLogger,
        failure: 'failed',
      });
      job.start();
      await vi.advanceTimersByTimeAsync(35);
      expect(passes).toBe(1);
      finish();
      await vi.advanceTimersByTimeAsync(10);
      expect(passes).toBe(2);
      const stopped = job.stop();
      finish();
      await stopped;
      await vi.advanceTimersByTimeAsync(50);
      expect(passes).toBe(2);
    } finally {
      vi.useRealTimers();
    }
  });
});
