import { describe, expect, it } from 'vitest';
import { formatDuration, parseDuration } from './duration.js';

describe('parseDuration', () => {
  it('reads single and compound units', () => {
    expect(parseDuration('30s')).toBe(30_000);
    expect(parseDuration('5m')).toBe(300_000);
    expect(parseDuration('1h30m')).toBe(5_400_000);
    expect(parseDuration('250ms')).toBe(250);
    expect(parseDuration('1.5s')).toBe(1_500);
  });

  it('rejects what is not a duration', () => {
    for (const bad of ['', '10', 'h', '5 m', '-1s', '1y', '1h-5m']) expect(parseDuration(bad)).toBeUndefined();
  });

  it('formats in the largest whole unit', () => {
    expect(formatDuration(3_600_000)).toBe('1h');
    expect(formatDuration(90_000)).toBe('90s');
    expect(formatDuration(1_500)).toBe('1500ms');
  });
});
