import { describe, expect, it } from 'vitest';
import { horizonOf, listWindow, parseDate, parseInstant, servedWindow } from './window.js';

const iso = (window: { from: Date; to: Date }) => [window.from.toISOString(), window.to.toISOString()];

describe('usage windows', () => {
  it('puts the horizon at 00:00Z of today − (days − 1)', () => {
    expect(horizonOf(new Date('2026-11-25T23:59:59.999Z'), 90).toISOString()).toBe('2026-08-28T00:00:00.000Z');
    expect(horizonOf(new Date('2026-11-25T00:00:00.000Z'), 31).toISOString()).toBe('2026-10-26T00:00:00.000Z');
  });

  it('reads dates as 00:00Z and RFC 3339 times with their offsets, refusing anything else by name', () => {
    expect(parseInstant('from', '2026-11-25').toISOString()).toBe('2026-11-25T00:00:00.000Z');
    expect(parseInstant('from', '2026-11-25T10:00:00+02:00').toISOString()).toBe('2026-11-25T08:00:00.000Z');
    expect(() => parseInstant('to', '2026-11-25 10:00')).toThrow(/^to: /);
    expect(() => parseInstant('to', '1732521600')).toThrow(/^to: /);
    expect(() => parseDate('from', '2026-02-29')).toThrow(/^from: "2026-02-29" is not a date/);
    expect(parseDate('from', '2028-02-29').toISOString()).toBe('2028-02-29T00:00:00.000Z');
    expect(() => parseDate('from', '2026-11-25T00:00:00Z')).toThrow(/^from: /);
  });

  it('raises a list read to the horizon and refuses a window that is not forwards', () => {
    const horizon = new Date('2026-10-26T00:00:00.000Z');
    expect(listWindow(undefined, undefined, horizon)).toEqual({ from: horizon, to: undefined });
    expect(listWindow(new Date('2026-11-01'), undefined, horizon).from.toISOString()).toBe('2026-11-01T00:00:00.000Z');
    expect(() => listWindow(new Date('2026-11-01'), new Date('2026-11-01'), horizon)).toThrow(/^from: must be before to/);
  });

  it('serves 30 days including today by default, clamped between the horizon and tomorrow', () => {
    const now = new Date('2026-11-25T12:00:00.000Z');
    const horizon = new Date('2026-10-10T00:00:00.000Z');
    expect(iso(servedWindow(undefined, undefined, now, horizon))).toEqual(['2026-10-27T00:00:00.000Z', '2026-11-26T00:00:00.000Z']);
    expect(iso(servedWindow(undefined, new Date('2026-11-01T06:00:00Z'), now, horizon))).toEqual(['2026-10-10T00:00:00.000Z', '2026-11-01T06:00:00.000Z']);
    expect(iso(servedWindow(new Date('2026-01-01'), new Date('2027-01-01'), now, horizon))).toEqual(['2026-10-10T00:00:00.000Z', '2026-11-26T00:00:00.000Z']);
    // wholly outside: served empty at the nearest edge
    expect(iso(servedWindow(new Date('2026-01-01'), new Date('2026-02-01'), now, horizon))).toEqual(['2026-10-10T00:00:00.000Z', '2026-10-10T00:00:00.000Z']);
    expect(iso(servedWindow(new Date('2027-01-01'), new Date('2027-02-01'), now, horizon))).toEqual(['2026-11-26T00:00:00.000Z', '2026-11-26T00:00:00.000Z']);
    expect(() => servedWindow(new Date('2026-11-26'), undefined, now, horizon)).toThrow(/^from: must be before to/);
  });
});
