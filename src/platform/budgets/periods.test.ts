import { describe, expect, it } from 'vitest';
import { dayOf, monthOf } from './periods.js';

describe('budget periods', () => {
  it('numbers days and months from the epoch as the contract does', () => {
    const at = new Date('2026-11-25T16:42:39.123Z');
    expect(dayOf(at)).toEqual({ period: 'day', ordinal: 20782, start: new Date('2026-11-25T00:00:00.000Z'), end: new Date('2026-11-26T00:00:00.000Z') });
    expect(monthOf(at)).toEqual({ period: 'month', ordinal: 682, start: new Date('2026-11-01T00:00:00.000Z'), end: new Date('2026-12-01T00:00:00.000Z') });
  });

  it('puts the last millisecond of a period in it and the next one in the next period', () => {
    expect(dayOf(new Date('2026-12-31T23:59:59.999Z')).ordinal).toBe(dayOf(new Date('2026-12-31T00:00:00.000Z')).ordinal);
    expect(monthOf(new Date('2027-01-01T00:00:00.000Z'))).toMatchObject({ ordinal: 684, start: new Date('2027-01-01T00:00:00.000Z'), end: new Date('2027-02-01T00:00:00.000Z') });
    expect(monthOf(new Date('2026-12-31T23:59:59.999Z')).ordinal).toBe(683);
  });
});
