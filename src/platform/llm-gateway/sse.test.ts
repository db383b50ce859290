import { describe, expect, it } from 'vitest';
import { createSseReader, jsonOf, parseEvent } from './sse.js';
import { createUsageTracker } from './usage-tracker.js';

describe('reading a provider\'s stream', () => {
  it('hands out whole events with their exact text, however the bytes are split, LF or CRLF', () => {
    const reader = createSseReader();
    expect(reader.push('event: message_start\ndata: {"a"')).toEqual([]);
    const [first] = reader.push(':1}\n\ndata: {"b":2}\r\n');
    expect(first).toBe('event: message_start\ndata: {"a":1}\n\n');
    expect(first && parseEvent(first)).toEqual({ event: 'message_start', data: '{"a":1}' });
    const [second] = reader.push('\r\ndata: [DONE]');
    expect(second).toBe('data: {"b":2}\r\n\r\n');
    expect(second && jsonOf(parseEvent(second))).toEqual({ b: 2 });
    const rest = reader.rest();
    expect(rest).toBe('data: [DONE]');
    expect(rest && jsonOf(parseEvent(rest))).toBeUndefined();
    expect(reader.rest()).toBeUndefined();
  });

  it('joins the data lines of one event, as a stream may split its JSON over them', () => {
    expect(parseEvent('data: {"usage":\ndata: {"prompt_tokens":1}}\n\n')).toEqual({ event: undefined, data: '{"usage":\n{"prompt_tokens":1}}' });
  });

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
