import { describe, expect, it } from 'vitest';
import { createUsageTracker } from './usage-tracker.js';

describe('reading the usage of a provider\'s stream', () => {
  it('merges Anthropic\'s message_start usage with the non-null fields of the last message_delta', () => {
    const tracker = createUsageTracker('anthropic', {});
    expect(tracker.raw()).toBeNull();
    tracker.observe({ type: 'message_start', message: { usage: { input_tokens: 10, cache_read_input_tokens: 5, output_tokens: 1 } } });
    tracker.observe({ type: 'message_delta', usage: { output_tokens: 7 } });
    tracker.observe({ type: 'message_delta', usage: { output_tokens: 9, input_tokens: null, server_tool_use: { web_search_requests: 1 } } });
    expect(tracker.raw()).toEqual({ input_tokens: 10, cache_read_input_tokens: 5, output_tokens: 9, server_tool_use: { web_search_requests: 1 } });
    expect(tracker.usage()).toMatchObject({ input: 10, cachedInput: 5, output: 9, toolCalls: 1 });
  });

  it('keeps Gemini\'s last usageMetadata and notes any grounded candidate', () => {
    const tracker = createUsageTracker('gemini', {});
    tracker.observe({ candidates: [{ groundingMetadata: { webSearchQueries: ['q'] } }], usageMetadata: { promptTokenCount: 3 } });
    tracker.observe({ candidates: [{}], usageMetadata: { promptTokenCount: 3, candidatesTokenCount: 4 } });
    expect(tracker.raw()).toEqual({ promptTokenCount: 3, candidatesTokenCount: 4 });
    expect(tracker.usage()).toMatchObject({ input: 3, output: 4, toolCalls: 1 });
  });

  it('reads OpenAI usage whatever the model\'s vendor, with a search counted when the request sent web_search_options', () => {
    const tracker = createUsageTracker('openai', { web_search_options: {} });
    tracker.observe({ choices: [{}], usage: null });
    expect(tracker.usage()).toBeNull();
    tracker.observe({ choices: [], usage: { prompt_tokens: 10, completion_tokens: 4 } });
    expect(tracker.usage()).toMatchObject({ input: 10, output: 4, toolCalls: 1, promptTokens: 10 });
  });
});
