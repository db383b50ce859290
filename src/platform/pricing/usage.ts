import type { Usage } from './rates.js';

/*
 * A provider's usage object mapped to the token kinds priced (PLATFORM-API Part 3 §1.3). Every
 * difference floors at 0; a field the provider leaves out counts 0.
 */

type Json = Record<string, unknown>;

const object = (value: unknown): Json => (typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : {});
const tokens = (value: unknown): number => (typeof value === 'number' && Number.isFinite(value) && value > 0 ? Math.floor(value) : 0);
const minus = (total: number, ...parts: number[]) => Math.max(0, parts.reduce((left, part) => left - part, total));

/** Anthropic `usage` (streams: `message_start.usage` overlaid by the last `message_delta.usage`). */
export function usageFromAnthropic(raw: unknown): Usage {
  const usage = object(raw);
  const creation = usage.cache_creation;
  const durations = object(creation);
  return {
    input: tokens(usage.input_tokens),
    cachedInput: tokens(usage.cache_read_input_tokens),
    // without the per-duration object every cache write is a 5-minute one
    cacheWrite5m: creation === undefined || creation === null ? tokens(usage.cache_creation_input_tokens) : tokens(durations.ephemeral_5m_input_tokens),
    cacheWrite1h: tokens(durations.ephemeral_1h_input_tokens),
    output: tokens(usage.output_tokens),
    toolCalls: tokens(object(usage.server_tool_use).web_search_requests),
  };
}

/** OpenAI chat completions `usage`; `webSearch`: the request sent `web_search_options`. */
export function usageFromOpenAI(raw: unknown, options: { webSearch: boolean }): Usage {
  const usage = object(raw);
  const prompt = tokens(usage.prompt_tokens);
  const completion = tokens(usage.completion_tokens);
  const promptDetails = object(usage.prompt_tokens_details);
  const completionDetails = object(usage.completion_tokens_details);
  const cached = tokens(promptDetails.cached_tokens);
  const audioIn = tokens(promptDetails.audio_tokens);
  const reasoning = tokens(completionDetails.reasoning_tokens);
  const audioOut = tokens(completionDetails.audio_tokens);
  return {
    input: minus(prompt, cached, audioIn),
    cachedInput: cached,
    audioInput: audioIn,
    output: minus(completion, reasoning, audioOut),
    reasoning,
    audioOutput: audioOut,
    toolCalls: options.webSearch ? 1 : 0,
    promptTokens: prompt,
  };
}

/** The AUDIO count of a Gemini `*TokensDetails` list (`[{modality, tokenCount}]`). */
function audioOf(details: unknown): number {
  if (!Array.isArray(details)) return 0;
  return details.reduce<number>((sum, item) => (object(item).modality === 'AUDIO' ? sum + tokens(object(item).tokenCount) : sum), 0);
}

/** Gemini `usageMetadata` (streams: the last one); `grounded`: a candidate's `groundingMetadata.webSearchQueries` was non-empty. */
export function usageFromGemini(raw: unknown, options: { grounded: boolean }): Usage {
  const usage = object(raw);
  const prompt = tokens(usage.promptTokenCount);
  const cached = tokens(usage.cachedContentTokenCount);
  const cachedAudio = audioOf(usage.cacheTokensDetails);
  const uncachedAudio = minus(audioOf(usage.promptTokensDetails), cachedAudio);
  const audioOut = audioOf(usage.candidatesTokensDetails);
  return {
    input: minus(prompt + tokens(usage.toolUsePromptTokenCount), cached, uncachedAudio),
    cachedInput: minus(cached, cachedAudio),
    audioInput: uncachedAudio,
    cachedAudioInput: cachedAudio,
    output: minus(tokens(usage.candidatesTokenCount), audioOut),
    reasoning: tokens(usage.thoughtsTokenCount),
    audioOutput: audioOut,
    toolCalls: options.grounded ? 1 : 0,
    promptTokens: prompt,
  };
}
