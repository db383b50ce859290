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
interface EffectiveRates {
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

interface RatesOfTier extends EffectiveRates {
  /** The highest input-kind and output-kind rates: what a reservation counts at. */
  maxIn: Money;
  maxOut: Money;
}

/** Every request is priced twice (bound, then usage): a block's rates are worked out once per tier, for as long as its catalog version lives. */
const ratesByBlock = new WeakMap<RateBlock, Map<PromptSizeTier | undefined, RatesOfTier>>();

function memoized(block: RateBlock, tier: PromptSizeTier | undefined): RatesOfTier {
  let byTier = ratesByBlock.get(block);
  if (!byTier) ratesByBlock.set(block, (byTier = new Map<PromptSizeTier | undefined, RatesOfTier>()));
  let rates = byTier.get(tier);
  if (!rates) byTier.set(tier, (rates = ratesOf(block, tier)));
  return rates;
}

function ratesOf(block: RateBlock, tier: PromptSizeTier | undefined): RatesOfTier {
  const rate = (name: string) => {
    const value = block.rates[name];
    return typeof value === 'string' ? new Money(value) : undefined;
  };
  const input = tier ? new Money(tier.inputUsdPerMillion) : (rate('inputUsdPerMillion') ?? ZERO);
  const output = tier ? new Money(tier.outputUsdPerMillion) : (rate('outputUsdPerMillion') ?? ZERO);
  const cachedInput = tier ? new Money(tier.cachedInputUsdPerMillion ?? tier.inputUsdPerMillion) : (rate('cachedInputUsdPerMillion') ?? input);
  const audioInput = rate('audioInputUsdPerMillion') ?? input;
  const rates = {
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
  return {
    ...rates,
    maxIn: Money.max(rates.input, rates.cachedInput, rates.cacheWrite5m, rates.cacheWrite1h, rates.audioInput, rates.cachedAudioInput),
    maxOut: Money.max(rates.output, rates.reasoning, rates.audioOutput),
  };
}

const count = (value: number | undefined) => Math.max(0, value ?? 0);

/** The exact cost in USD of one request's usage. */
export function priceUsage(block: RateBlock, usage: Usage): Money {
  const rates = memoized(block, tierFor(block, count(usage.promptTokens)));
  const terms: [Money, number | undefined][] = [
    [rates.input, usage.input],
    [rates.cachedInput, usage.cachedInput],
    [rates.cacheWrite5m, usage.cacheWrite5m],
    [rates.cacheWrite1h, usage.cacheWrite1h],
    [rates.audioInput, usage.audioInput],
    [rates.cachedAudioInput, usage.cachedAudioInput],
    [rates.output, usage.output],
    [rates.reasoning, usage.reasoning],
    [rates.audioOutput, usage.audioOutput],
  ];
  let tokens = ZERO;
  // most kinds are absent from a usage: no decimal work for them
  for (const [rate, tokensOfKind] of terms) if (count(tokensOfKind) > 0) tokens = tokens.plus(rate.times(count(tokensOfKind)));
  const calls = count(usage.toolCalls);
  return calls > 0 ? tokens.div(MILLION).plus(rates.tool.times(calls).div(THOUSAND)) : tokens.div(MILLION);
}

/**
 * The most a request can cost, for its reservation: `inputUpperBound` tokens at the highest input-kind rate
 * and `maxOutput` at the highest output-kind rate of the tier `inputUpperBound` selects, plus `toolCalls`.
 */
export function maxCost(block: RateBlock, inputUpperBound: number, maxOutput: number, toolCalls = 0): Money {
  const { maxIn, maxOut, tool } = memoized(block, tierFor(block, inputUpperBound));
  return maxIn
    .times(count(inputUpperBound))
    .plus(maxOut.times(count(maxOutput)))
    .div(MILLION)
    .plus(tool.times(count(toolCalls)).div(THOUSAND));
}
