/*
 * A stand-in for OpenAI's Chat Completions API, for trying the LLM gateway on one machine without an
 * account: it answers every request by echoing the last user message, streaming or not, and reports
 * usage the way OpenAI does (prompt and completion tokens, the usage chunk when a stream asks for it).
 * A token is counted as four bytes of text, near enough for a trial.
 *   npm run example:llm   (then: npm run start:platform; examples/platform.yaml points the openai provider here)
 */
import { createServer } from 'node:http';

const port = Number(process.env.PORT ?? 8092);

interface ChatRequest {
  model?: string;
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
  messages?: { role?: string; content?: unknown }[];
}

const tokens = (text: string) => Math.max(1, Math.ceil(Buffer.byteLength(text) / 4));

const server = createServer((request, response) => {
  const parts: Buffer[] = [];
  request.on('data', (part: Buffer) => parts.push(part));
  request.on('end', () => {
    const send = (status: number, body: unknown) => response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (request.method !== 'POST' || !request.url?.endsWith('/chat/completions')) return send(404, { error: { message: 'only POST /v1/chat/completions is here', type: 'invalid_request_error', param: null, code: null } });
    let body: ChatRequest;
    try {
      body = JSON.parse(Buffer.concat(parts).toString('utf8')) as ChatRequest;
    } catch {
      return send(400, { error: { message: 'the body is not JSON', type: 'invalid_request_error', param: null, code: null } });
    }
    const last = body.messages?.filter((message) => message.role === 'user').at(-1)?.content;
    const content = `You said: ${typeof last === 'string' ? last : JSON.stringify(last ?? '')}`;
    const model = body.model ?? 'unknown';
    const prompt = tokens(JSON.stringify(body.messages ?? []));
    const usage = { prompt_tokens: prompt, completion_tokens: tokens(content), total_tokens: prompt + tokens(content), prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 }, completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0 } };
    const id = `chatcmpl-example-${Date.now()}`;
    const created = Math.floor(Date.now() / 1000);
    if (!body.stream) {
      return send(200, { id, object: 'chat.completion', created, model, choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }], usage });
    }
    response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const event = (data: unknown) => response.write(`data: ${JSON.stringify(data)}\n\n`);
    const chunk = (delta: Record<string, unknown>, finish: string | null) => event({ id, object: 'chat.completion.chunk', created, model, choices: [{ index: 0, delta, finish_reason: finish }] });
    chunk({ role: 'assistant', content: '' }, null);
    for (const word of content.split(/(?<= )/)) chunk({ content: word }, null);
    chunk({}, 'stop');
    if (body.stream_options?.include_usage) event({ id, object: 'chat.completion.chunk', created, model, choices: [], usage });
    response.end('data: [DONE]\n\n');
  });
});

server.listen(port, '127.0.0.1', () => process.stdout.write(`a stand-in for OpenAI on http://127.0.0.1:${port}/v1 (echoes; not a model)\n`));
