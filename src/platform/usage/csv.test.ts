import { describe, expect, it } from 'vitest';
import { csvLine } from './csv.js';

describe('CSV lines (RFC 4180)', () => {
  it('quotes only fields with a comma, a quote, CR or LF, doubling quotes, and ends lines with CRLF', () => {
    expect(csvLine(['2026-11-25', 'alice', '0.50'])).toBe('2026-11-25,alice,0.50\r\n');
    expect(csvLine(['a,b', 'say "hi"', 'line\nbreak', 'cr\rhere', "it's ünïcode"])).toBe('"a,b","say ""hi""","line\nbreak","cr\rhere",it\'s ünïcode\r\n');
    expect(csvLine(['', ' padded '])).toBe(', padded \r\n');
  });
});
