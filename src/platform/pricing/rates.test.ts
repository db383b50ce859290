import { describe, expect, it } from 'vitest';
import { formatMoney } from '../money.js';
import { maxCost, priceUsage, rateBlockOf, type RateBlock } from './rates.js';
import type { Tools } from './schemas.js';

const tools: Tools = {
  vendor_a: { webSearchUsdPerThousand: '10.00' },
  vendor_b: { fileSearchUsdPerThousand: '2.50', webSearchUsdPerThousand: '50.00' },
  vendor_c: { groundingSearchUsdPerThousand: '35.00' },
};
const claude = rateBlockOf(
  {
    provider: 'anthropic',
    model: 'claude',
    vendor_a: { inputUsdPerMillion: '3.00', outputUsdPerMillion: '15.00', cachedInputUsdPerMillion: '0.30', cacheCreation5mInputUsdPerMillion: '3.75', cacheCreation1hInputUsdPerMillion: '6.00' },
  },
  tools,
);
const gpt = rateBlockOf(
  {
    provider: 'openai',
    model: 'gpt',
    vendor_b: {
      inputUsdPerMillion: '2.50',
      outputUsdPerMillion: '10.00',
      cachedInputUsdPerMillion: '1.25',
      audioInputUsdPerMillion: '40.00',
      audioOutputUsdPerMillion: '80.00',
      reasoningOutputUsdPerMillion: '12.00',
    },
  },
  tools,
);
const gemini = rateBlockOf(
  {
    provider: 'gemini',
    model: 'gemini',
    vendor_c: {
      inputUsdPerMillion: '1.25',
      outputUsdPerMillion: '10.00',
      cachedInputUsdPerMillion: '0.125',
      audioInputUsdPerMillion: '3.00',
      cachedAudioInputUsdPerMillion: '0.75',
      thoughtsOutputUsdPerMillion: '11.00',
      promptSizeTiers: [
        { aboveTokens: 200000, inputUsdPerMillion: '2.50', outputUsdPerMillion: '15.00', cachedInputUsdPerMillion: '0.25' },
        { aboveTokens: 500000, inputUsdPerMillion: '5.00', outputUsdPerMillion: '20.00' },
      ],
    },
  },
  tools,
);
const bare: RateBlock = rateBlockOf({ provider: 'openai', model: 'bare', vendor_b: { inputUsdPerMillion: '2.00', outputUsdPerMillion: '8.00' } }, {});
const usd = (value: Parameters<typeof formatMoney>[0]) => formatMoney(value);

describe('pricing a usage record', () => {
  it('prices input and output tokens per million, exactly', () => {
    expect(usd(priceUsage(claude, { input: 1000, output: 500 }))).toBe('0.0105');
    expect(usd(priceUsage(claude, { input: 1, output: 0 }))).toBe('0.000003');
    expect(usd(priceUsage(claude, {}))).toBe('0.00');
  });

  it('prices cache reads and both cache write durations at their own rates', () => {
    expect(usd(priceUsage(claude, { cachedInput: 1_000_000 }))).toBe('0.30');
    expect(usd(priceUsage(claude, { cacheWrite5m: 1_000_000 }))).toBe('3.75');
    expect(usd(priceUsage(claude, { cacheWrite1h: 1_000_000 }))).toBe('6.00');
  });

  it('prices audio in and out, and reasoning tokens', () => {
    expect(usd(priceUsage(gpt, { audioInput: 1000, audioOutput: 1000 }))).toBe('0.12');
    expect(usd(priceUsage(gpt, { reasoning: 1_000_000 }))).toBe('12.00');
    expect(usd(priceUsage(gemini, { reasoning: 1_000_000, cachedAudioInput: 1_000_000 }))).toBe('11.75');
  });

  it('falls back to the input and output rates for every absent rate', () => {
    const everything = { input: 1, cachedInput: 1, cacheWrite5m: 1, cacheWrite1h: 1, audioInput: 1, cachedAudioInput: 1 };
    expect(usd(priceUsage(bare, everything))).toBe('0.000012');
    expect(usd(priceUsage(bare, { output: 1, reasoning: 1, audioOutput: 1 }))).toBe('0.000024');
    // cached audio falls back to audio input, not to input
    expect(usd(priceUsage(gpt, { cachedAudioInput: 1_000_000 }))).toBe('40.00');
  });

  it('prices tool calls per thousand, and a tool without a rate is free', () => {
    expect(usd(priceUsage(claude, { toolCalls: 3 }))).toBe('0.03');
    expect(usd(priceUsage(gpt, { toolCalls: 1 }))).toBe('0.05');
    expect(usd(priceUsage(gemini, { toolCalls: 1 }))).toBe('0.035');
    expect(usd(priceUsage(bare, { toolCalls: 5 }))).toBe('0.00');
  });

  it('switches to the tier with the largest threshold strictly below the prompt size', () => {
    const usage = { input: 1_000_000, output: 1_000_000, cachedInput: 1_000_000 };
    expect(usd(priceUsage(gemini, { ...usage, promptTokens: 200_000 }))).toBe('11.375');
    expect(usd(priceUsage(gemini, { ...usage, promptTokens: 200_001 }))).toBe('17.75');
    // the 500k tier has no cached rate: cached input costs the tier's input rate
    expect(usd(priceUsage(gemini, { ...usage, promptTokens: 600_000 }))).toBe('30.00');
    // rates the tiers do not name (thoughts, audio) keep the block's
    expect(usd(priceUsage(gemini, { reasoning: 1_000_000, promptTokens: 600_000 }))).toBe('11.00');
  });

  it('treats negative counts (differences that went below zero) as zero', () => {
    expect(usd(priceUsage(claude, { input: -5, output: 1_000_000 }))).toBe('15.00');
  });
});

describe('the most a request can cost', () => {
  it('takes the highest input-kind and output-kind rates', () => {
    // claude: highest input kind is the 1h cache write (6.00), output 15.00
    expect(usd(maxCost(claude, 1_000_000, 1_000_000))).toBe('21.00');
    // gpt: audio input 40, audio output 80
    expect(usd(maxCost(gpt, 1000, 1000))).toBe('0.12');
  });

  it('uses the tier the input bound selects, and adds the tool calls', () => {
    expect(usd(maxCost(gemini, 100_000, 0))).toBe('0.30');
    expect(usd(maxCost(gemini, 300_000, 1000, 1))).toBe('0.95');
    expect(usd(maxCost(gemini, 1_000_000, 0))).toBe('5.00');
  });

  it('is never below the price of a usage within the bounds', () => {
    const usage = { input: 100, cachedInput: 200, cacheWrite1h: 300, output: 50, promptTokens: 600 };
    expect(maxCost(claude, 600, 50).greaterThanOrEqualTo(priceUsage(claude, usage))).toBe(true);
  });
});
