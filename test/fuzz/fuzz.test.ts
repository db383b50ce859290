import { describe, expect, it } from 'vitest';
import { runFuzz } from '../../scripts/fuzz/run.js';

/**
 * The fuzz run the team keeps as a check (`npm run fuzz` sends 10,000 per service), small and with a
 * fixed seed: both services started as `toolyard` runs them, every operation of their OpenAPI
 * documents sent bad requests over raw sockets.
 */
describe('generated bad requests against both services', () => {
  it('get no 5xx, only {error} bodies with their 4xx, always an answer, and leave no process running', async () => {
    const report = await runFuzz({ requests: 400, seed: 20261125 });
    for (const name of ['registry', 'runtime']) {
      const service = report.services[name];
      expect(service?.requests, name).toBe(400);
      expect(service?.problems, name).toEqual([]);
    }
    expect(report.services.runtime?.leakedProcesses).toBe(0);
  }, 300_000);
});
