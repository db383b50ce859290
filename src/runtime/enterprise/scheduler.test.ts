import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { silentLogger } from '../../core/telemetry/logger.js';
import { startEnterpriseRefresh } from './scheduler.js';
import type { EnterpriseStatus } from './schemas.js';
import type { EnterpriseService } from './service.js';

const HOUR = 3_600_000;

/** Only what the scheduler uses: when the next refresh is due, and the refresh itself. */
function fakeEnterprise(state: { configured: boolean; failing: boolean; refreshes: number }): EnterpriseService {
  const unused = () => Promise.reject(new Error('not used by the scheduler'));
  return {
    set: unused,
    status: unused,
    unset: unused,
    applied: unused,
    nextRefreshMs: () => Promise.resolve(state.configured ? HOUR : undefined),
    refresh: () => {
      state.refreshes += 1;
      // the scheduler never reads the status a refresh returns
      return state.failing ? Promise.reject(new Error('disk full')) : Promise.resolve({} as EnterpriseStatus);
    },
  };
}

describe('the enterprise refresh schedule', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('refreshes at start and then every refresh_interval, until stopped', async () => {
    const state = { configured: true, failing: false, refreshes: 0 };
    const schedule = startEnterpriseRefresh(fakeEnterprise(state), silentLogger);
    await vi.advanceTimersByTimeAsync(0);
    expect(state.refreshes).toBe(1);
    await vi.advanceTimersByTimeAsync(HOUR);
    expect(state.refreshes).toBe(2);
    schedule.stop();
    await vi.advanceTimersByTimeAsync(3 * HOUR);
    expect(state.refreshes).toBe(2);
  });

  it('waits while nothing is set, and starts within a minute of a set', async () => {
    const state = { configured: false, failing: false, refreshes: 0 };
    const schedule = startEnterpriseRefresh(fakeEnterprise(state), silentLogger);
    await vi.advanceTimersByTimeAsync(10 * 60_000);
    expect(state.refreshes).toBe(0);
    state.configured = true;
    await vi.advanceTimersByTimeAsync(60_000);
    expect(state.refreshes).toBe(1);
    schedule.stop();
  });

  it('goes on after a refresh that throws', async () => {
    const state = { configured: true, failing: true, refreshes: 0 };
    const schedule = startEnterpriseRefresh(fakeEnterprise(state), silentLogger);
    await vi.advanceTimersByTimeAsync(2 * HOUR);
    expect(state.refreshes).toBe(3);
    schedule.stop();
  });
});
