import { Decimal } from 'decimal.js';
import { InvalidInputError } from '../core/errors.js';

/**
 * Exact decimal money. Precision is far above anything a rate (12 + 12 digits) times a token count can
 * need, and the exponent thresholds keep every rendering plain, so no sum is ever rounded.
 */
export const Money = Decimal.clone({ precision: 200, rounding: Decimal.ROUND_HALF_EVEN, toExpNeg: -9e15, toExpPos: 9e15 });
export type Money = InstanceType<typeof Money>;

export const MONEY_PATTERN = '^\\d{1,12}(\\.\\d{1,12})?$';
const MONEY = new RegExp(MONEY_PATTERN);

export const ZERO = new Money(0);

/** Money sent by a client: a decimal string of at most 12 + 12 digits; anything else is 400 naming `field`. */
export function parseMoney(field: string, value: unknown): Money {
  if (typeof value !== 'string' || !MONEY.test(value)) {
    throw new InvalidInputError(`${field}: must be a decimal string such as "12.50" (up to 12 digits, a point and up to 12 decimals; no sign, no exponent, not a number)`);
  }
  return new Money(value);
}

/** Plain decimal, no exponent, trailing zeros trimmed but at least two fraction digits: "0.00", "12.50", "0.0000015". */
export function formatMoney(value: Money | string | number): string {
  const text = new Money(value).toFixed();
  const [whole, fraction = ''] = text.split('.');
  const trimmed = fraction.replace(/0+$/, '');
  return `${whole}.${trimmed.padEnd(2, '0')}`;
}
