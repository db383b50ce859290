/**
 * The benchmark's upstream model provider, in its own process so that it never shares an event loop
 * with a gateway under test: `node --import tsx bench/llm-upstream.ts [--pace-ms N]`, printing its origin on
 * stdout. It speaks OpenAI chat completions, streaming and not: a role chunk, eight content chunks, a finish
 * chunk, the usage chunk when `stream_options.include_usage` asks for it (the others then carry
 * `"usage":null`, as OpenAI's do), then [DONE]. By default it answers as fast as it can; with `--pace-ms N`
 * it sends its ten chunks N ms apart, as a provider streams tokens as it generates them (usage and [DONE]
 * N ms after the tenth), and a whole answer when the tenth chunk would have gone.
 *
 * Usage is sized to the request so that a request costs exactly its reservation bound (PLATFORM-API Part 3
 * §1.2 for a text-only request: prompt = body bytes + 4,096, completion = `max_tokens`): a budget with
 * room for N such requests then admits exactly N, however the admissions and settlements interleave.
 */
import { createServer, type ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { listen } from './ceiling-server.js';

const CONTENT_CHUNKS = 8;
const { values } = parseArgs({ options: { 'pace-ms': { type: 'string', default: '0' } } });
const PACE_MS = Number(values['pace-ms']);

/**
 * The events, one by one `PACE_MS` apart (the first too), then `tail`; all at once without a pace. Each is
 * due at a fixed time from the start, as a provider's tokens are: a late timer (this process shares the
 * machine with the gateway under test) delays that event only, not every one after it.
 */
function stream(response: ServerResponse, events: string[], tail: string): void {
  if (PACE_MS <= 0) {
    response.end(events.join('') + tail);
    return;
  }
  const started = performance.now();
  let next = 0;
  const send = () => {
    const event = events[next++];
    if (event === undefined) {
      response.end(tail);
      return;
    }
    response.write(event);
    setTimeout(send, Math.max(0, started + (next + 1) * PACE_MS - performance.now()));
  };
  setTimeout(send, PACE_MS);
}

/** A content chunk; asked for usage, OpenAI sends `"usage":null` in every chunk before the usage chunk. */
function chunk(id: string, model: string, delta: Record<string, unknown>, finish: string | null, includeUsage: boolean): string {
  return `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created: 1_764_000_000, model, choices: [{ index: 0, delta, finish_reason: finish }], ...(includeUsage && { usage: null }) })}\n\n`;
}

const server = createServer((request, response) => {
  const parts: Buffer[] = [];
  request.on('data', (part: Buffer) => parts.push(part));
  request.on('end', () => {
    const raw = Buffer.concat(parts);
    const body = JSON.parse(raw.toString('utf8')) as { model: string; stream?: boolean; max_tokens?: number; stream_options?: { include_usage?: boolean } };
    // a non-streaming compact JSON body reaches the upstream byte for byte, so its size is the client's
    const clientBytes = raw.length;
    const usage = { prompt_tokens: clientBytes + 4096, completion_tokens: body.max_tokens ?? 16, total_tokens: clientBytes + 4096 + (body.max_tokens ?? 16) };
    const id = 'chatcmpl-bench';
    if (!body.stream) {
      const answer = JSON.stringify({
        id,
        object: 'chat.completion',
        created: 1_764_000_000,
        model: body.model,
        choices: [{ index: 0, message: { role: 'assistant', content: 'one two three four five six seven eight' }, finish_reason: 'stop' }],
        usage,
      });
      const send = () => {
        response.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(answer) });
        response.end(answer);
      };
      if (PACE_MS > 0) setTimeout(send, PACE_MS * (CONTENT_CHUNKS + 2));
      else send();
      return;
    }
    response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const includeUsage = body.stream_options?.include_usage === true;
    const events = [chunk(id, body.model, { role: 'assistant', content: '' }, null, includeUsage)];
    for (let index = 0; index < CONTENT_CHUNKS; index++) events.push(chunk(id, body.model, { content: ` word${index}` }, null, includeUsage));
    events.push(chunk(id, body.model, {}, 'stop', includeUsage));
    const usageChunk = includeUsage ? `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created: 1_764_000_000, model: body.model, choices: [], usage })}\n\n` : '';
    stream(response, events, `${usageChunk}data: [DONE]\n\n`);
  });
});
server.keepAliveTimeout = 60_000;

process.stdout.write(`${await listen(server)}\n`);
