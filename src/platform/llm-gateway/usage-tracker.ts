import type { Usage } from '../pricing/rates.js';
import { usageFromAnthropic, usageFromGemini, usageFromOpenAI } from '../pricing/usage.js';
import type { WireFormat } from '../keys/gateway-auth.js';
import { isJsonObject } from '../../core/json-object.js';

/*
 * The usage of one exchange as the provider reports it (PLATFORM-API Part 3 §1.3): from the response,
 * or from the stream's events — OpenAI's usage chunk, Anthropic's `message_start.usage` overlaid by the
 * non-null fields of the last `message_delta.usage`, Gemini's last `usageMetadata`.
 */

type Json = Record<string, unknown>;

export interface UsageTracker {
  /** A whole response body, or the data of one stream event (`event`: the SSE event name, if any). */
  observe(data: unknown, event?: string): void;
  /** The provider's usage object (Anthropic's merged); null when none was seen. */
  raw(): Json | null;
  /** The token and call counts priced; null when no usage was seen. */
  usage(): Usage | null;
}

/** `route`: the wire format of the route called (chat completions reports OpenAI usage whatever the model's vendor). */
export function createUsageTracker(route: WireFormat, request: Json): UsageTracker {
  switch (route) {
    case 'openai':
      return openAiTracker(request.web_search_options !== undefined);
    case 'anthropic':
      return anthropicTracker();
    case 'gemini':
      return geminiTracker();
  }
}

function openAiTracker(webSearch: boolean): UsageTracker {
  let last: Json | null = null;
  return {
    observe(data) {
      if (isJsonObject(data) && isJsonObject(data.usage)) last = data.usage;
    },
    raw: () => last,
    usage: () => (last === null ? null : usageFromOpenAI(last, { webSearch })),
  };
}

function anthropicTracker(): UsageTracker {
  let start: Json | null = null;
  let delta: Json | null = null;
  const merged = (): Json | null => {
    if (start === null && delta === null) return null;
    const result: Json = { ...start };
    for (const [name, value] of Object.entries(delta ?? {})) if (value !== null && value !== undefined) result[name] = value;
    return result;
  };
  return {
    observe(data) {
      if (!isJsonObject(data)) return;
      if (data.type === 'message_start' && isJsonObject(data.message) && isJsonObject(data.message.usage)) start = data.message.usage;
      else if (data.type === 'message_delta' && isJsonObject(data.usage)) delta = data.usage;
      else if (data.type === 'message' && isJsonObject(data.usage)) start = data.usage;
    },
    raw: merged,
    usage: () => {
      const usage = merged();
      return usage === null ? null : usageFromAnthropic(usage);
    },
  };
}

function geminiTracker(): UsageTracker {
  let last: Json | null = null;
  let grounded = false;
  return {
    observe(data) {
      if (!isJsonObject(data)) return;
      if (isJsonObject(data.usageMetadata)) last = data.usageMetadata;
      if (!Array.isArray(data.candidates)) return;
      for (const candidate of data.candidates) {
        const queries = isJsonObject(candidate) && isJsonObject(candidate.groundingMetadata) ? candidate.groundingMetadata.webSearchQueries : undefined;
        if (Array.isArray(queries) && queries.length > 0) grounded = true;
      }
    },
    raw: () => last,
    usage: () => (last === null ? null : usageFromGemini(last, { grounded })),
  };
}
