/**
 * The benchmark's upstream model provider, in its own process so that it never shares an event loop
 * with a gateway under test: `node --import tsx bench/llm-upstream.ts`, printing its origin on stdout.
 * It speaks OpenAI chat completions, streaming and not, as fast as it can: a role chunk, eight content
 * chunks, a finish chunk, the usage chunk when `stream_options.include_usage` asks for it, then [DONE].
 *
 * Usage is sized to the request so that a request costs exactly its reservation bound (PLATFORM-API Part 3
 * §1.2 for a text-only request: prompt = body bytes + 4,096, completion = `max_tokens`): a budget with
 * room for N such requests then admits exactly N, however the admissions and settlements interleave.
 */
import { createServer } from 'node:http';
import { listen } from './ceiling-server.js';

const CONTENT_CHUNKS = 8;

function chunk(id: string, model: string, delta: Record<string, unknown>, finish: string | null): string {
  return `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created: 1_764_000_000, model, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
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
      response.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(answer) });
      response.end(answer);
      return;
    }
    response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    let text = chunk(id, body.model, { role: 'assistant', content: '' }, null);
    for (let index = 0; index < CONTENT_CHUNKS; index++) text += chunk(id, body.model, { content: ` word${index}` }, null);
    text += chunk(id, body.model, {}, 'stop');
    if (body.stream_options?.include_usage) text += `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created: 1_764_000_000, model: body.model, choices: [], usage })}\n\n`;
    response.end(`${text}data: [DONE]\n\n`);
  });
});
server.keepAliveTimeout = 60_000;

process.stdout.write(`${await listen(server)}\n`);
