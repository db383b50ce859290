import { describe, expect, it } from 'vitest';
import { formatMoney } from '../money.js';
import { BASELINE } from './baseline/baseline.generated.js';
import { priceUsage, rateBlockOf } from './rates.js';
import { usageFromAnthropic, usageFromGemini, usageFromOpenAI } from './usage.js';

const block = (provider: string, model: string) => {
  const entry = BASELINE.spec.entries.find((candidate) => candidate.provider === provider && candidate.model === model);
  if (!entry) throw new Error(`${provider}/${model} is not in the baseline`);
  return rateBlockOf(entry, BASELINE.spec.tools);
};

describe('usage objects of the three wire formats', () => {
  it('maps an Anthropic usage with cache writes of both durations and a web search', () => {
    // shape of the Messages API usage object (docs.anthropic.com, prompt caching and web search)
    const usage = usageFromAnthropic({
      input_tokens: 21,
      cache_creation_input_tokens: 1500,
      cache_read_input_tokens: 3000,
      cache_creation: { ephemeral_5m_input_tokens: 1000, ephemeral_1h_input_tokens: 500 },
      output_tokens: 393,
      server_tool_use: { web_search_requests: 2 },
    });
    expect(usage).toEqual({ input: 21, cachedInput: 3000, cacheWrite5m: 1000, cacheWrite1h: 500, output: 393, toolCalls: 2 });
    // claude-sonnet-4-5: 21×3 + 3000×0.30 + 1000×3.75 + 500×6 + 393×15, per million; 2 searches at $10 per thousand
    expect(formatMoney(priceUsage(block('anthropic', 'claude-sonnet-4-5'), usage))).toBe('0.033608');
  });

  it('counts every Anthropic cache write as 5-minute when the per-duration object is absent', () => {
    expect(usageFromAnthropic({ input_tokens: 1, cache_creation_input_tokens: 700, output_tokens: 2 })).toMatchObject({ cacheWrite5m: 700, cacheWrite1h: 0 });
  });

  it('maps an OpenAI usage: cached and audio out of the prompt, reasoning and audio out of the completion', () => {
    const usage = usageFromOpenAI(
      {
        prompt_tokens: 2006,
        completion_tokens: 300,
        total_tokens: 2306,
        prompt_tokens_details: { cached_tokens: 1920, audio_tokens: 6 },
        completion_tokens_details: { reasoning_tokens: 200, audio_tokens: 40, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
      },
      { webSearch: true },
    );
    expect(usage).toEqual({ input: 80, cachedInput: 1920, audioInput: 6, output: 60, reasoning: 200, audioOutput: 40, toolCalls: 1, promptTokens: 2006 });
    // gpt-4o: 80×2.50 + 1920×1.25 + 6×2.50 (audio in → input) + 60×10 + 200×10 (reasoning → output) + 40×10
    // (audio out → output) = 5615 per million, and one search at $50 per thousand
    expect(formatMoney(priceUsage(block('openai', 'gpt-4o'), usage))).toBe('0.055615');
  });

  it('floors OpenAI differences at zero', () => {
    expect(usageFromOpenAI({ prompt_tokens: 5, completion_tokens: 1, prompt_tokens_details: { cached_tokens: 9 }, completion_tokens_details: { reasoning_tokens: 3 } }, { webSearch: false })).toMatchObject({
      input: 0,
      output: 0,
    });
  });

  it('maps a Gemini usageMetadata with cached audio, tool prompts, thoughts and grounding, selecting the tier by prompt size', () => {
    const usage = usageFromGemini(
      {
        promptTokenCount: 250000,
        cachedContentTokenCount: 100000,
        toolUsePromptTokenCount: 500,
        candidatesTokenCount: 1200,
        thoughtsTokenCount: 800,
        promptTokensDetails: [
          { modality: 'TEXT', tokenCount: 240000 },
          { modality: 'AUDIO', tokenCount: 10000 },
        ],
        cacheTokensDetails: [{ modality: 'AUDIO', tokenCount: 4000 }],
        candidatesTokensDetails: [{ modality: 'TEXT', tokenCount: 1200 }],
      },
      { grounded: true },
    );
    expect(usage).toEqual({ input: 144500, cachedInput: 96000, audioInput: 6000, cachedAudioInput: 4000, output: 1200, reasoning: 800, audioOutput: 0, toolCalls: 1, promptTokens: 250000 });
    // gemini-2.5-pro above 200k: 144500×2.50 + 96000×0.25 + 6000×2.50 + 4000×2.50 (audio, cached audio → the
    // tier's input) + 1200×15 + 800×15 (thoughts → the tier's output) = 440250 per million, one grounding at $35 per thousand
    expect(formatMoney(priceUsage(block('gemini', 'gemini-2.5-pro'), usage))).toBe('0.47525');
  });

  it('treats a missing usage object as nothing used', () => {
    for (const usage of [usageFromAnthropic(undefined), usageFromOpenAI(null, { webSearch: false }), usageFromGemini({}, { grounded: false })]) {
      expect(formatMoney(priceUsage(block('openai', 'gpt-4o'), usage))).toBe('0.00');
    }
  });
});
