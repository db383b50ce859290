import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../core/errors.js';
import { formatMoney, Money, parseMoney } from './money.js';

describe('money', () => {
  it('renders plain decimals with trailing zeros trimmed but two fraction digits kept', () => {
    expect(formatMoney('0')).toBe('0.00');
    expect(formatMoney('12.5')).toBe('12.50');
    expect(formatMoney('12.500000')).toBe('12.50');
    expect(formatMoney('0.0000015')).toBe('0.0000015');
    expect(formatMoney('100')).toBe('100.00');
    expect(formatMoney(new Money('1e-20'))).toBe('0.00000000000000000001');
    expect(formatMoney(new Money('1e25'))).toBe('10000000000000000000000000.00');
  });

  it('adds and multiplies exactly where binary floating point does not', () => {
    expect(0.1 + 0.2).not.toBe(0.3);
    expect(formatMoney(new Money('0.1').plus('0.2'))).toBe('0.30');
    // a million requests of 1,234 tokens at $3 per million tokens
    const one = new Money(1234).times('3').div(1_000_000);
    let sum = new Money(0);
    for (let i = 0; i < 1000; i += 1) sum = sum.plus(one);
    expect(formatMoney(sum.times(1000))).toBe('3702.00');
  });

  it('parses the accepted input form', () => {
    expect(formatMoney(parseMoney('limit', '12'))).toBe('12.00');
    expect(formatMoney(parseMoney('limit', '999999999999.999999999999'))).toBe('999999999999.999999999999');
  });

  it.each([12, '-1', '+1', '1e3', '1.', '.5', '1,5', '', ' 1', '1234567890123', '1.1234567890123', null])('refuses %j naming the field', (value) => {
    expect(() => parseMoney('day_limit_usd', value)).toThrow(InvalidInputError);
    expect(() => parseMoney('day_limit_usd', value)).toThrow(/day_limit_usd/);
  });
});
