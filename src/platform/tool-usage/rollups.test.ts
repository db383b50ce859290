import { describe, expect, it } from 'vitest';
import { rollUp, type FoldedRecord } from './rollups.js';
import { COUNT_WIDTHS, USER_WIDTHS } from './windows.js';

const record = (sequence: number, at: string, more: Partial<FoldedRecord> = {}): FoldedRecord => ({
  sequence,
  occurred_at: new Date(at),
  environment: 'production',
  connector_id: 'c1',
  connector_name: 'GitHub',
  tool_name: 'search',
  decision: 'allowed',
  user_id: 'u1',
  groups: [{ id: 'g1', name: 'engineering' }],
  ...more,
});

describe('rollUp', () => {
  // handed over out of order, as a statement without ORDER BY may return them
  const records = [
    record(3, '2026-03-02T10:01:00.000Z', { decision: 'denied', user_id: 'u2', groups: [] }),
    record(1, '2026-03-02T10:00:05.000Z'),
    record(2, '2026-03-02T10:00:59.999Z', { connector_name: 'GitHub Enterprise', groups: [{ id: 'g1', name: 'eng' }] }),
  ];
  const rolled = rollUp(records);

  it('counts each record once in every width, in the bucket aligned like the reads', () => {
    for (const width of COUNT_WIDTHS) {
      expect(rolled.counts.filter((row) => row.width === width).reduce((sum, row) => sum + row.count, 0)).toBe(3);
    }
    const minutes = rolled.counts.filter((row) => row.width === 60).map((row) => [row.bucket_start, row.decision, row.count]);
    expect(minutes).toEqual([
      ['2026-03-02T10:00:00.000Z', 'allowed', 2],
      ['2026-03-02T10:01:00.000Z', 'denied', 1],
    ]);
    // 2026-03-02 is a Monday: the day and hour buckets start on the hour
    expect(rolled.counts.find((row) => row.width === 86_400)?.bucket_start).toBe('2026-03-02T00:00:00.000Z');
  });

  it("names a connector and a group as the chunk's latest record does", () => {
    expect(rolled.counts.find((row) => row.width === 60 && row.decision === 'allowed')?.connector_name).toBe('GitHub Enterprise');
    expect(rolled.groups.filter((row) => row.width === 60)).toEqual([
      { width: 60, bucket_start: '2026-03-02T10:00:00.000Z', environment: 'production', connector_id: 'c1', group_id: 'g1', group_name: 'eng', count: 2 },
    ]);
  });

  it('keeps one series row per dimension key, and distinct users by day and hour only', () => {
    const hour = rolled.series.filter((row) => row.width === 3_600).map((row) => [row.dimension, row.key, row.count]);
    expect(hour).toEqual([
      ['none', '', 3],
      ['decision', 'allowed', 2],
      ['connector', 'c1', 3],
      ['tool', 'c1/search', 3],
      ['decision', 'denied', 1],
    ]);
    expect(new Set(rolled.users.map((row) => row.width))).toEqual(new Set(USER_WIDTHS));
    expect(rolled.users.filter((row) => row.width === 3_600).map((row) => [row.user_id, row.count])).toEqual([
      ['u1', 2],
      ['u2', 1],
    ]);
  });

  it('adds nothing for no records', () => {
    expect(rollUp([])).toEqual({ counts: [], series: [], users: [], groups: [] });
  });
});
