import { describe, expect, it } from 'vitest';
import { bucketStarts, bucketWidthSeconds, cover, COUNT_WIDTHS, ORIGIN_MS } from './windows.js';

const at = (text: string) => Date.parse(text);
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

describe('bucket widths', () => {
  it('follow the window: 60 s up to 3 h, 900 s up to 2 d, an hour up to 8 d, a day up to 200 d, else a week', () => {
    expect([3 * HOUR, 3 * HOUR + 1, 2 * DAY, 2 * DAY + 1, 8 * DAY, 8 * DAY + 1, 200 * DAY, 200 * DAY + 1].map(bucketWidthSeconds)).toEqual([
      60, 900, 900, 3_600, 3_600, 86_400, 86_400, 604_800,
    ]);
  });

  it('align weeks on Mondays from 1970-01-05 and include the partial first and last buckets', () => {
    expect(new Date(ORIGIN_MS).getUTCDay()).toBe(1);
    const weeks = bucketStarts(at('2026-11-26T10:00:00Z'), at('2026-12-09T00:00:00Z'), 604_800).map((start) => new Date(start).toISOString());
    expect(weeks).toEqual(['2026-11-23T00:00:00.000Z', '2026-11-30T00:00:00.000Z', '2026-12-07T00:00:00.000Z']);
  });
});

describe('the cover of a window by roll-up blocks', () => {
  it('is exact: the blocks tile the window, each aligned to its width', () => {
    const from = at('2026-11-01T10:17:42.5Z');
    const to = at('2026-11-20T03:08:09Z');
    const blocks = cover(from, to, COUNT_WIDTHS);
    expect(blocks[0]?.from).toBe(from);
    expect(blocks.at(-1)?.to).toBe(to);
    for (let index = 1; index < blocks.length; index++) expect(blocks[index]?.from).toBe(blocks[index - 1]?.to);
    for (const block of blocks) if (block.width > 0) expect([(block.from - ORIGIN_MS) % (block.width * 1000), (block.to - ORIGIN_MS) % (block.width * 1000)]).toEqual([0, 0]);
    expect(blocks.filter((block) => block.width === 0).map((block) => block.to - block.from)).toEqual([17_500, 9_000]);
    expect(blocks.find((block) => block.width === 86_400)).toEqual({ width: 86_400, from: at('2026-11-02T00:00:00Z'), to: at('2026-11-20T00:00:00Z') });
  });

  it('reads only raw records inside one minute, and nothing for an empty window', () => {
    expect(cover(at('2026-11-01T10:17:10Z'), at('2026-11-01T10:17:50Z'), COUNT_WIDTHS)).toEqual([{ width: 0, from: at('2026-11-01T10:17:10Z'), to: at('2026-11-01T10:17:50Z') }]);
    expect(cover(5, 5, COUNT_WIDTHS)).toEqual([]);
  });
});
