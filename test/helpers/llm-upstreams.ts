import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/*
 * A local stand-in for the three model providers (OpenAI chat completions, Anthropic messages, Gemini
 * generateContent), streaming (SSE) and not, with usage blocks as the providers document them. It can
 * be told to fail: answer an error status, hang before its headers, or cut a stream short. Answers are
 * built once per usage setting, so a benchmark can drive it hard.
 */

export type Failure = { kind: 'status'; status: number } | { kind: 'hang' } | { kind: 'cut' };

export interface ReceivedRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: IncomingHttpHeaders;
  body: Record<string, unknown>;
}

export interface AnthropicStreamUsage {
  /** `message_start.message.usage` */
  start: Record<string, unknown>;
  /** `message_delta.usage` (the last one) */
  delta: Record<string, unknown>;
}

export interface FakeUpstreamOptions {
  /** Text pieces a stream sends (default 3). */
  chunks?: number;
  /** Delay between stream events in ms (default 0). */
  chunkDelayMs?: number;
}

export interface FakeUpstream {
  url: string;
  /** Every request received, in order. */
  requests: ReceivedRequest[];
  /** The next `count` requests fail this way (default: every request until `reset`). */
  fail(failure: Failure, count?: number): void;
  setOpenAiUsage(usage: Record<string, unknown>): void;
  setAnthropicUsage(usage: AnthropicStreamUsage): void;
  setGeminiUsage(usage: Record<string, unknown>, webSearchQueries?: string[]): void;
  setStreamPacing(options: FakeUpstreamOptions): void;
  /** Back to defaults: no failures, default usage and pacing, an empty request log. */
  reset(): void;
  close(): Promise<void>;
}

export const OPENAI_USAGE = {
  prompt_tokens: 1200,
  completion_tokens: 300,
  total_tokens: 1500,
  prompt_tokens_details: { cached_tokens: 200, audio_tokens: 0 },
  completion_tokens_details: { reasoning_tokens: 100, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
};

export const ANTHROPIC_USAGE: AnthropicStreamUsage = {
  start: {
    input_tokens: 1000,
    cache_creation_input_tokens: 300,
    cache_read_input_tokens: 400,
    cache_creation: { ephemeral_5m_input_tokens: 100, ephemeral_1h_input_tokens: 200 },
    output_tokens: 1,
    service_tier: 'standard',
  },
  delta: { output_tokens: 250, input_tokens: null, cache_creation_input_tokens: null, cache_read_input_tokens: null, server_tool_use: { web_search_requests: 2 } },
};

export const GEMINI_USAGE = {
  promptTokenCount: 2000,
  candidatesTokenCount: 500,
  totalTokenCount: 2700,
  cachedContentTokenCount: 800,
  thoughtsTokenCount: 150,
  toolUsePromptTokenCount: 50,
  promptTokensDetails: [
    { modality: 'TEXT', tokenCount: 1700 },
    { modality: 'AUDIO', tokenCount: 300 },
  ],
  cacheTokensDetails: [
    { modality: 'TEXT', tokenCount: 700 },
    { modality: 'AUDIO', tokenCount: 100 },
  ],
  candidatesTokensDetails: [{ modality: 'TEXT', tokenCount: 500 }],
};

const WORDS = ['Hello', ' from', ' the', ' fake', ' upstream', '.'];
const sse = (data: unknown, event?: string) => `${event === undefined ? '' : `event: ${event}\n`}data: ${JSON.stringify(data)}\n\n`;
const pieces = (count: number) => Array.from({ length: count }, (_, index) => WORDS[index % WORDS.length] as string);

function openAiAnswer(model: string, usage: Record<string, unknown>, count: number): string {
  return JSON.stringify({
    id: 'chatcmpl-fake',
    object: 'chat.completion',
    created: 1_764_000_000,
    model,
    choices: [{ index: 0, message: { role: 'assistant', content: pieces(count).join(''), refusal: null }, logprobs: null, finish_reason: 'stop' }],
    usage,
  });
}

function openAiStream(model: string, usage: Record<string, unknown>, count: number, includeUsage: boolean): string[] {
  const chunk = (delta: Record<string, unknown>, finish: string | null) => ({
    id: 'chatcmpl-fake',
    object: 'chat.completion.chunk',
    created: 1_764_000_000,
    model,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
    ...(includeUsage && { usage: null }),
  });
  const events = [sse(chunk({ role: 'assistant', content: '' }, null)), ...pieces(count).map((text) => sse(chunk({ content: text }, null))), sse(chunk({}, 'stop'))];
  if (includeUsage) events.push(sse({ id: 'chatcmpl-fake', object: 'chat.completion.chunk', created: 1_764_000_000, model, choices: [], usage }));
  events.push('data: [DONE]\n\n');
  return events;
}

function anthropicMerged(usage: AnthropicStreamUsage): Record<string, unknown> {
  const merged: Record<string, unknown> = { ...usage.start };
  for (const [name, value] of Object.entries(usage.delta)) if (value !== null) merged[name] = value;
  return merged;
}

function anthropicAnswer(model: string, usage: AnthropicStreamUsage, count: number): string {
  return JSON.stringify({
    id: 'msg_fake',
    type: 'message',
    role: 'assistant',
    model,
    content: [{ type: 'text', text: pieces(count).join('') }],
    stop_reason: 'end_turn',
    stop_sequence: null,
    usage: anthropicMerged(usage),
  });
}

function anthropicStream(model: string, usage: AnthropicStreamUsage, count: number): string[] {
  return [
    sse({ type: 'message_start', message: { id: 'msg_fake', type: 'message', role: 'assistant', model, content: [], stop_reason: null, stop_sequence: null, usage: usage.start } }, 'message_start'),
    sse({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }, 'content_block_start'),
    sse({ type: 'ping' }, 'ping'),
    ...pieces(count).map((text) => sse({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } }, 'content_block_delta')),
    sse({ type: 'content_block_stop', index: 0 }, 'content_block_stop'),
    sse({ type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: usage.delta }, 'message_delta'),
    sse({ type: 'message_stop' }, 'message_stop'),
  ];
}

function geminiCandidate(text: string, finish: boolean, queries: string[]) {
  return {
    content: { parts: [{ text }], role: 'model' },
    index: 0,
    ...(finish && { finishReason: 'STOP' }),
    ...(finish && queries.length > 0 && { groundingMetadata: { webSearchQueries: queries, groundingChunks: [{ web: { uri: 'https://example.com', title: 'example' } }] } }),
  };
}

function geminiAnswer(model: string, usage: Record<string, unknown>, queries: string[], count: number): string {
  return JSON.stringify({ candidates: [geminiCandidate(pieces(count).join(''), true, queries)], usageMetadata: usage, modelVersion: model, responseId: 'fake' });
}

function geminiStream(model: string, usage: Record<string, unknown>, queries: string[], count: number): string[] {
  const texts = pieces(count);
  // every chunk carries the usage so far; the last one is complete
  return texts.map((text, index) => {
    const last = index === texts.length - 1;
    const partial = last ? usage : { promptTokenCount: usage.promptTokenCount, totalTokenCount: usage.promptTokenCount };
    return `data: ${JSON.stringify({ candidates: [geminiCandidate(text, last, queries)], usageMetadata: partial, modelVersion: model, responseId: 'fake' })}\r\n\r\n`;
  });
}

const ERROR_BODIES = {
  openai: (status: number) => ({ error: { message: `fake upstream failure ${String(status)}`, type: 'server_error', param: null, code: null } }),
  anthropic: (status: number) => ({ type: 'error', error: { type: 'api_error', message: `fake upstream failure ${String(status)}` } }),
  gemini: (status: number) => ({ error: { code: status, message: `fake upstream failure ${String(status)}`, status: 'INTERNAL' } }),
};

export async function startFakeUpstream(initial: FakeUpstreamOptions = {}): Promise<FakeUpstream> {
  const requests: ReceivedRequest[] = [];
  let failure: Failure | undefined;
  let failuresLeft = 0;
  let openAiUsage: Record<string, unknown> = OPENAI_USAGE;
  let anthropicUsage = ANTHROPIC_USAGE;
  let geminiUsage: Record<string, unknown> = GEMINI_USAGE;
  let queries: string[] = [];
  let pacing = { chunks: initial.chunks ?? 3, chunkDelayMs: initial.chunkDelayMs ?? 0 };
  const hanging = new Set<ServerResponse>();

  const stream = async (response: ServerResponse, events: string[], cut: boolean) => {
    response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const sent = cut ? events.slice(0, Math.max(1, Math.floor(events.length / 2))) : events;
    for (const event of sent) {
      if (response.destroyed) return;
      // each event leaves before the next (and before a cut), as a provider's would
      await new Promise((resolve) => response.write(event, resolve));
      if (pacing.chunkDelayMs > 0) await new Promise((resolve) => setTimeout(resolve, pacing.chunkDelayMs));
    }
    if (cut) response.destroy();
    else response.end();
  };

  const server = createServer((request, response) => {
    const parts: Buffer[] = [];
    request.on('data', (part: Buffer) => parts.push(part));
    request.on('end', () => {
      const url = new URL(request.url ?? '/', 'http://localhost');
      let body: Record<string, unknown> = {};
      try {
        body = JSON.parse(Buffer.concat(parts).toString('utf8')) as Record<string, unknown>;
      } catch {
        // not JSON: recorded empty, answered as any other
      }
      requests.push({ method: request.method ?? '', path: url.pathname, query: Object.fromEntries(url.searchParams), headers: request.headers, body });
      const format = url.pathname.endsWith('/chat/completions') ? 'openai' : url.pathname.endsWith('/v1/messages') ? 'anthropic' : url.pathname.includes('/v1beta/models/') ? 'gemini' : undefined;
      if (!format) {
        response.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'not found' }));
        return;
      }
      const current = failure;
      if (current && failuresLeft !== 0) failuresLeft -= 1;
      if (failuresLeft === 0) failure = undefined;
      if (current?.kind === 'status') {
        response.writeHead(current.status, { 'content-type': 'application/json' }).end(JSON.stringify(ERROR_BODIES[format](current.status)));
        return;
      }
      if (current?.kind === 'hang') {
        hanging.add(response);
        response.on('close', () => hanging.delete(response));
        return;
      }
      const cut = current?.kind === 'cut';
      const model = format === 'gemini' ? decodeURIComponent(url.pathname.split('/').pop()?.split(':')[0] ?? '') : String(body.model);
      const streaming = format === 'gemini' ? url.pathname.endsWith(':streamGenerateContent') : body.stream === true;
      const count = pacing.chunks;
      if (streaming) {
        const includeUsage = (body.stream_options as { include_usage?: boolean } | undefined)?.include_usage === true;
        const events =
          format === 'openai' ? openAiStream(model, openAiUsage, count, includeUsage) : format === 'anthropic' ? anthropicStream(model, anthropicUsage, count) : geminiStream(model, geminiUsage, queries, count);
        void stream(response, events, cut);
        return;
      }
      const answer = format === 'openai' ? openAiAnswer(model, openAiUsage, count) : format === 'anthropic' ? anthropicAnswer(model, anthropicUsage, count) : geminiAnswer(model, geminiUsage, queries, count);
      if (cut) {
        response.writeHead(200, { 'content-type': 'application/json', 'content-length': String(answer.length) });
        response.write(answer.slice(0, 10), () => response.destroy());
        return;
      }
      response.writeHead(200, { 'content-type': 'application/json' }).end(answer);
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${String(port)}`,
    requests,
    fail(next, count = -1) {
      failure = next;
      failuresLeft = count;
    },
    setOpenAiUsage(usage) {
      openAiUsage = usage;
    },
    setAnthropicUsage(usage) {
      anthropicUsage = usage;
    },
    setGeminiUsage(usage, webSearchQueries = []) {
      geminiUsage = usage;
      queries = webSearchQueries;
    },
    setStreamPacing(options) {
      pacing = { chunks: options.chunks ?? 3, chunkDelayMs: options.chunkDelayMs ?? 0 };
    },
    reset() {
      failure = undefined;
      failuresLeft = 0;
      openAiUsage = OPENAI_USAGE;
      anthropicUsage = ANTHROPIC_USAGE;
      geminiUsage = GEMINI_USAGE;
      queries = [];
      pacing = { chunks: initial.chunks ?? 3, chunkDelayMs: initial.chunkDelayMs ?? 0 };
      requests.length = 0;
    },
    async close() {
      for (const response of hanging) response.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
