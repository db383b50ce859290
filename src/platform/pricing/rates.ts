import { Money, ZERO } from '../money.js';
import type { Entry, PromptSizeTier, Tools, Vendor } from './schemas.js';

/*
 * Pricing one request exactly (PLATFORM-API Part 3 §1.2, §1.3): Σ tokens × rate / 10^6 + calls × rate /
 * 10^3 in decimal. Absent rates fall back (cached, cache writes, audio input → input; cached audio →
 * audio input; reasoning, thoughts, audio output → output; a tool without a rate is free), and the
 * prompt-size tier with the largest `aboveTokens` below the selector replaces input, output and cached input.
 */

/** A model's rate block as the gateway prices it: the catalog entry's block and its vendor's tool rate. */
export interface RateBlock {
  vendor: Vendor;
  rates: Record<string, string | PromptSizeTier[] | undefined>;
  /** USD per thousand search calls (web search, grounding); absent: free. */
  toolUsdPerThousand?: string;
}

/** Token and call counts of one request, already mapped from the provider's usage object. */
export interface Usage {
  /** Uncached text input. */
  input?: number;
  cachedInput?: number;
  cacheWrite5m?: number;
  cacheWrite1h?: number;
  /** Uncached audio input. */
  audioInput?: number;
  cachedAudioInput?: number;
  /** Output other than reasoning and audio. */
  output?: number;
  /** Reasoning (vendor_b) or thoughts (vendor_c) tokens. */
  reasoning?: number;
  audioOutput?: number;
  toolCalls?: number;
  /** The tier selector: the prompt's whole size in tokens. */
  promptTokens?: number;
}

/** Every rate kind of a block once the tier and the fallbacks are applied. */
export interface EffectiveRates {
  input: Money;
  cachedInput: Money;
  cacheWrite5m: Money;
  cacheWrite1h: Money;
  audioInput: Money;
  cachedAudioInput: Money;
  output: Money;
  reasoning: Money;
  audioOutput: Money;
  tool: Money;
}

const MILLION = 1_000_000;
const THOUSAND = 1000;

/** The block of an entry with its vendor's tool rate (file searches are never charged: no route reports them). */
export function rateBlockOf(entry: Entry, tools: Tools): RateBlock {
  const tool = entry.vendor_a ? tools.vendor_a?.webSearchUsdPerThousand : entry.vendor_b ? tools.vendor_b?.webSearchUsdPerThousand : tools.vendor_c?.groundingSearchUsdPerThousand;
  const vendor: Vendor = entry.vendor_a ? 'vendor_a' : entry.vendor_b ? 'vendor_b' : 'vendor_c';
  const rates = (entry.vendor_a ?? entry.vendor_b ?? entry.vendor_c ?? {}) as RateBlock['rates'];
  return { vendor, rates, ...(tool !== undefined && { toolUsdPerThousand: tool }) };
}

/** The tier with the largest `aboveTokens` strictly below `selector`, if any. */
function tierFor(block: RateBlock, selector: number): PromptSizeTier | undefined {
  const tiers = block.rates.promptSizeTiers;
  if (!Array.isArray(tiers)) return undefined;
  let chosen: PromptSizeTier | undefined;
  for (const tier of tiers) if (tier.aboveTokens < selector && (!chosen || tier.aboveTokens > chosen.aboveTokens)) chosen = tier;
  return chosen;
}

export function effectiveRates(block: RateBlock, selector: number): EffectiveRates {
  const rate = (name: string) => {
    const value = block.rates[name];
    return typeof value === 'string' ? new Money(value) : undefined;
  };
  const tier = tierFor(block, selector);
  const input = tier ? new Money(tier.inputUsdPerMillion) : (rate('inputUsdPerMillion') ?? ZERO);
  const output = tier ? new Money(tier.outputUsdPerMillion) : (rate('outputUsdPerMillion') ?? ZERO);
  const cachedInput = tier ? new Money(tier.cachedInputUsdPerMillion ?? tier.inputUsdPerMillion) : (rate('cachedInputUsdPerMillion') ?? input);
  const audioInput = rate('audioInputUsdPerMillion') ?? input;
  return {
    input,
    cachedInput,
    cacheWrite5m: rate('cacheCreation5mInputUsdPerMillion') ?? input,
    cacheWrite1h: rate('cacheCreation1hInputUsdPerMillion') ?? input,
    audioInput,
    cachedAudioInput: rate('cachedAudioInputUsdPerMillion') ?? audioInput,
    output,
    reasoning: rate('reasoningOutputUsdPerMillion') ?? rate('thoughtsOutputUsdPerMillion') ?? output,
    audioOutput: rate('audioOutputUsdPerMillion') ?? output,
    tool: block.toolUsdPerThousand === undefined ? ZERO : new Money(block.toolUsdPerThousand),
  };
}

const count = (value: number | undefined) => Math.max(0, value ?? 0);

/** The exact cost in USD of one request's usage. */
export function priceUsage(block: RateBlock, usage: Usage): Money {
  const rates = effectiveRates(block, count(usage.promptTokens));
  const tokens = new Money(0)
    .plus(rates.input.times(count(usage.input)))
    .plus(rates.cachedInput.times(count(usage.cachedInput)))
    .plus(rates.cacheWrite5m.times(count(usage.cacheWrite5m)))
    .plus(rates.cacheWrite1h.times(count(usage.cacheWrite1h)))
    .plus(rates.audioInput.times(count(usage.audioInput)))
    .plus(rates.cachedAudioInput.times(count(usage.cachedAudioInput)))
    .plus(rates.output.times(count(usage.output)))
    .plus(rates.reasoning.times(count(usage.reasoning)))
    .plus(rates.audioOutput.times(count(usage.audioOutput)));
  return tokens.div(MILLION).plus(rates.tool.times(count(usage.toolCalls)).div(THOUSAND));
}

/**
 * The most a request can cost, for its reservation: `inputUpperBound` tokens at the highest input-kind rate
 * and `maxOutput` at the highest output-kind rate of the tier `inputUpperBound` selects, plus `toolCalls`.
 */
export function maxCost(block: RateBlock, inputUpperBound: number, maxOutput: number, toolCalls = 0): Money {
  const rates = effectiveRates(block, inputUpperBound);
  const maxIn = Money.max(rates.input, rates.cachedInput, rates.cacheWrite5m, rates.cacheWrite1h, rates.audioInput, rates.cachedAudioInput);
  const maxOut = Money.max(rates.output, rates.reasoning, rates.audioOutput);
  return maxIn
    .times(count(inputUpperBound))
    .plus(maxOut.times(count(maxOutput)))
    .div(MILLION)
    .plus(rates.tool.times(count(toolCalls)).div(THOUSAND));
}
