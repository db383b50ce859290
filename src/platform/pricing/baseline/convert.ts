import { formatMoney, Money } from '../../money.js';
import type { Entry, PromptSizeTier, Spec, Tools } from '../schemas.js';

/*
 * The built-in baseline: LiteLLM's price table converted to the catalog's rate blocks (PLATFORM-API
 * Part 3 §2.1). Rates are per token in the table; each is taken from the number's shortest decimal form
 * (what String() gives for the parsed JSON number) and multiplied by 10^6 in decimal, never in floating
 * point. Priority, flex, batch, image, per-second and per-character prices are left out.
 */

export interface ModelLimits {
  maxInputTokens: number;
  maxOutputTokens: number;
}

export interface Baseline {
  effective_from: string;
  provider_aliases: Record<string, string>;
  spec: Spec;
  /** The table's context limits by "<provider>/<model>", for the gateway's reservation bounds. */
  limits: Record<string, ModelLimits>;
}

/** The table's update time (the mirror commit "Update prices: 2026-07-24 18:23:43"). */
export const BASELINE_EFFECTIVE_FROM = '2026-07-24T18:23:43.000Z';

type Row = Record<string, unknown>;
const PROVIDERS = { anthropic: 'vendor_a', openai: 'vendor_b', gemini: 'vendor_c' } as const;
type Provider = keyof typeof PROVIDERS;

const perMillion = (value: unknown) => (typeof value === 'number' ? formatMoney(new Money(String(value)).times(1_000_000)) : undefined);

/** The rates of `row` under the block's names, absent ones left out. */
function pick(row: Row, names: Record<string, string>): Record<string, string> {
  const rates: Record<string, string> = {};
  for (const [rate, field] of Object.entries(names)) {
    const value = perMillion(row[field]);
    if (value !== undefined) rates[rate] = value;
  }
  return rates;
}

/** `*_above_<N>k_tokens` prices, one tier per N; a kind the table does not raise keeps the base rate. */
function tiers(row: Row, base: { inputUsdPerMillion: string; outputUsdPerMillion: string }): PromptSizeTier[] {
  const byThreshold = new Map<number, Partial<PromptSizeTier>>();
  const kinds: Record<string, 'inputUsdPerMillion' | 'outputUsdPerMillion' | 'cachedInputUsdPerMillion'> = {
    input_cost_per_token: 'inputUsdPerMillion',
    output_cost_per_token: 'outputUsdPerMillion',
    cache_read_input_token_cost: 'cachedInputUsdPerMillion',
  };
  for (const [field, value] of Object.entries(row)) {
    const match = /^(input_cost_per_token|output_cost_per_token|cache_read_input_token_cost)_above_(\d+)k_tokens$/.exec(field);
    const rate = perMillion(value);
    if (!match || rate === undefined) continue;
    const [, kind = '', thousands = ''] = match;
    const aboveTokens = Number(thousands) * 1000;
    const tier = byThreshold.get(aboveTokens) ?? {};
    tier[kinds[kind] ?? 'inputUsdPerMillion'] = rate;
    byThreshold.set(aboveTokens, tier);
  }
  return [...byThreshold.entries()]
    .sort(([a], [b]) => a - b)
    .map(([aboveTokens, tier]) => ({
      aboveTokens,
      ...(tier.cachedInputUsdPerMillion !== undefined && { cachedInputUsdPerMillion: tier.cachedInputUsdPerMillion }),
      inputUsdPerMillion: tier.inputUsdPerMillion ?? base.inputUsdPerMillion,
      outputUsdPerMillion: tier.outputUsdPerMillion ?? base.outputUsdPerMillion,
    }));
}

function entryOf(provider: Provider, model: string, row: Row): Entry | undefined {
  const input = perMillion(row.input_cost_per_token);
  const output = perMillion(row.output_cost_per_token);
  if (input === undefined || output === undefined) return undefined;
  const base = { inputUsdPerMillion: input, outputUsdPerMillion: output };
  const audio = { audioInputUsdPerMillion: 'input_cost_per_audio_token', audioOutputUsdPerMillion: 'output_cost_per_audio_token', cachedInputUsdPerMillion: 'cache_read_input_token_cost' };
  if (provider === 'anthropic') {
    const rates = pick(row, {
      cacheCreation1hInputUsdPerMillion: 'cache_creation_input_token_cost_above_1hr',
      cacheCreation5mInputUsdPerMillion: 'cache_creation_input_token_cost',
      cachedInputUsdPerMillion: 'cache_read_input_token_cost',
    });
    return { model, provider, vendor_a: { ...rates, ...base } };
  }
  const promptSizeTiers = tiers(row, base);
  const withTiers = promptSizeTiers.length > 0 ? { promptSizeTiers } : {};
  if (provider === 'openai') {
    const rates = pick(row, { ...audio, reasoningOutputUsdPerMillion: 'output_cost_per_reasoning_token' });
    return { model, provider, vendor_b: { ...rates, ...base, ...withTiers } };
  }
  const rates = pick(row, {
    ...audio,
    cachedAudioInputUsdPerMillion: 'cache_read_input_audio_token_cost',
    thoughtsOutputUsdPerMillion: 'output_cost_per_reasoning_token',
  });
  return { model, provider, vendor_c: { ...rates, ...base, ...withTiers } };
}

/** The highest per-query search price of any of the provider's chat models, per thousand queries. */
function searchRate(rows: Row[]): string | undefined {
  let highest: Money | undefined;
  for (const row of rows) {
    const prices = row.search_context_cost_per_query;
    if (typeof prices !== 'object' || prices === null) continue;
    for (const price of Object.values(prices as Record<string, unknown>)) {
      if (typeof price !== 'number') continue;
      const rate = new Money(String(price)).times(1000);
      if (!highest || rate.greaterThan(highest)) highest = rate;
    }
  }
  return highest && formatMoney(highest);
}

const byProviderModel = (a: Entry, b: Entry) => (a.provider === b.provider ? (a.model < b.model ? -1 : a.model > b.model ? 1 : 0) : a.provider < b.provider ? -1 : 1);

/** Converts the table's JSON text into the baseline catalog. */
export function convertPriceTable(text: string): Baseline {
  const table = JSON.parse(text) as Record<string, unknown>;
  // a model listed both with and without the gemini/ prefix takes the prefixed row: the table's own
  // entry for the Gemini API, where the bare key is an older duplicate (gemini-exp-1206 differs)
  const entries = new Map<string, Entry>();
  const limits: Record<string, ModelLimits> = {};
  const rowsOf: Record<Provider, Row[]> = { anthropic: [], openai: [], gemini: [] };
  for (const [key, value] of Object.entries(table)) {
    if (typeof value !== 'object' || value === null) continue;
    const row = value as Row;
    const provider = row.litellm_provider as Provider;
    if (row.mode !== 'chat' || !(provider in PROVIDERS)) continue;
    const model = provider === 'gemini' ? key.replace(/^gemini\//, '') : key;
    const entry = entryOf(provider, model, row);
    if (!entry || (entries.has(`${provider}/${model}`) && !key.startsWith('gemini/'))) continue;
    entries.set(`${provider}/${model}`, entry);
    rowsOf[provider].push(row);
    if (typeof row.max_input_tokens === 'number' && typeof row.max_output_tokens === 'number') {
      limits[`${provider}/${model}`] = { maxInputTokens: row.max_input_tokens, maxOutputTokens: row.max_output_tokens };
    }
  }
  const anthropicSearch = searchRate(rowsOf.anthropic);
  const openaiSearch = searchRate(rowsOf.openai);
  const geminiSearch = searchRate(rowsOf.gemini);
  const tools: Tools = {
    vendor_a: anthropicSearch === undefined ? {} : { webSearchUsdPerThousand: anthropicSearch },
    vendor_b: { fileSearchUsdPerThousand: '2.50', ...(openaiSearch !== undefined && { webSearchUsdPerThousand: openaiSearch }) },
    vendor_c: geminiSearch === undefined ? {} : { groundingSearchUsdPerThousand: geminiSearch },
  };
  return { effective_from: BASELINE_EFFECTIVE_FROM, provider_aliases: { google: 'gemini' }, spec: { entries: [...entries.values()].sort(byProviderModel), tools }, limits };
}
