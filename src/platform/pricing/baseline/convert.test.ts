import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { MONEY_PATTERN } from '../../money.js';
import { BASELINE } from './baseline.generated.js';
import { convertPriceTable } from './convert.js';

const tableText = readFileSync(new URL('litellm-model-prices.json', import.meta.url), 'utf8');
const entry = (provider: string, model: string) => BASELINE.spec.entries.find((candidate) => candidate.provider === provider && candidate.model === model);

describe('the built-in pricing baseline', () => {
  it('is exactly the conversion of the price table kept beside it (run scripts/write-pricing-baseline.ts after changing the table)', () => {
    expect(convertPriceTable(tableText)).toEqual(BASELINE);
  });

  it('converts an Anthropic model to vendor_a with both cache write durations and no prompt-size tiers', () => {
    // claude-sonnet-4-5: input 0.000003, output 0.000015, cache read 3e-7, cache write 0.00000375 (5m) / 0.000006 (1h)
    expect(entry('anthropic', 'claude-sonnet-4-5')).toEqual({
      model: 'claude-sonnet-4-5',
      provider: 'anthropic',
      vendor_a: {
        cacheCreation1hInputUsdPerMillion: '6.00',
        cacheCreation5mInputUsdPerMillion: '3.75',
        cachedInputUsdPerMillion: '0.30',
        inputUsdPerMillion: '3.00',
        outputUsdPerMillion: '15.00',
      },
    });
    expect(BASELINE.limits['anthropic/claude-sonnet-4-5']).toEqual({ maxInputTokens: 200000, maxOutputTokens: 64000 });
  });

  it('converts an OpenAI audio model to vendor_b with audio rates', () => {
    // gpt-4o-audio-preview: input 0.0000025, output 0.00001, audio in 0.00004, audio out 0.00008
    expect(entry('openai', 'gpt-4o-audio-preview')?.vendor_b).toEqual({
      audioInputUsdPerMillion: '40.00',
      audioOutputUsdPerMillion: '80.00',
      inputUsdPerMillion: '2.50',
      outputUsdPerMillion: '10.00',
    });
  });

  it('converts a Gemini model (key without gemini/) to vendor_c with its 200k tier, leaving priority prices out', () => {
    // gemini/gemini-2.5-pro: input 0.00000125 / above 200k 0.0000025, output 0.00001 / 0.000015, cache read 1.25e-7 / 2.5e-7
    expect(entry('gemini', 'gemini-2.5-pro')?.vendor_c).toEqual({
      cachedInputUsdPerMillion: '0.125',
      inputUsdPerMillion: '1.25',
      outputUsdPerMillion: '10.00',
      promptSizeTiers: [{ aboveTokens: 200000, cachedInputUsdPerMillion: '0.25', inputUsdPerMillion: '2.50', outputUsdPerMillion: '15.00' }],
    });
    expect(entry('gemini', 'gemini/gemini-2.5-pro')).toBeUndefined();
  });

  it('takes the gemini/ row of a model the table lists with and without the prefix', () => {
    // gemini/gemini-exp-1206 is free in the table, the bare gemini-exp-1206 is not
    expect(entry('gemini', 'gemini-exp-1206')?.vendor_c).toMatchObject({ inputUsdPerMillion: '0.00', outputUsdPerMillion: '0.00' });
  });

  it('has the tool rates, aliases and date the contract names, and only chat models of the three providers', () => {
    expect(BASELINE.spec.tools).toEqual({
      vendor_a: { webSearchUsdPerThousand: '10.00' },
      vendor_b: { fileSearchUsdPerThousand: '2.50', webSearchUsdPerThousand: '50.00' },
      vendor_c: { groundingSearchUsdPerThousand: '35.00' },
    });
    expect(BASELINE.provider_aliases).toEqual({ google: 'gemini' });
    expect(BASELINE.effective_from).toBe('2026-07-24T18:23:43.000Z');
    const table = JSON.parse(tableText) as Record<string, { mode?: string; litellm_provider?: string; input_cost_per_token?: number; output_cost_per_token?: number }>;
    const priced = Object.entries(table).map(([key, row]) => ({ ...row, model: key.replace(/^gemini\//, '') })).filter(
      (row) => row.mode === 'chat' && ['anthropic', 'openai', 'gemini'].includes(row.litellm_provider ?? '') && row.input_cost_per_token !== undefined && row.output_cost_per_token !== undefined,
    );
    const models = new Set(priced.map((row) => `${row.litellm_provider ?? ''}/${row.model}`));
    expect(BASELINE.spec.entries).toHaveLength(models.size);
  });

  it('sorts entries by provider then model, each unique, every rate a valid money string', () => {
    const keys = BASELINE.spec.entries.map((item) => `${item.provider}\u0000${item.model}`);
    expect(keys).toEqual([...keys].sort());
    expect(new Set(keys).size).toBe(keys.length);
    const pattern = new RegExp(MONEY_PATTERN);
    const rates = JSON.stringify(BASELINE.spec).match(/"[A-Za-z0-9]+UsdPer(Million|Thousand)":"[^"]*"/g) ?? [];
    expect(rates.length).toBeGreaterThan(500);
    for (const rate of rates) expect(rate.split(':')[1]?.replace(/"/g, '')).toMatch(pattern);
  });
});
