/* RFC 4180 as the spend export writes it (PLATFORM-API Part 3 §5): CRLF line ends, no BOM, quotes only where needed. */

const NEEDS_QUOTES = /[",\r\n]/;

/** A field as written: quoted, with its quotes doubled, only when it holds a comma, a quote, CR or LF. */
export function csvField(value: string): string {
  return NEEDS_QUOTES.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

export function csvLine(fields: readonly string[]): string {
  return `${fields.map(csvField).join(',')}\r\n`;
}
