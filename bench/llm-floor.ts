import { Agent, createServer, request as forward, type Server } from 'node:http';

/**
 * The floor of the LLM gateway benchmark: a bare node:http pass-through that forwards each request to the
 * upstream with a keep-alive agent and pipes the answer back, doing nothing else.
 */
export function createPassThrough(upstream: string): Server {
  const target = new URL(upstream);
  const agent = new Agent({ keepAlive: true, maxSockets: 256 });
  return createServer((request, response) => {
    const outgoing = forward(
      { host: target.hostname, port: target.port, method: request.method, path: `${target.pathname.replace(/\/$/, '')}${request.url ?? '/'}`, headers: request.headers, agent },
      (answer) => {
        response.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(response);
      },
    );
    outgoing.on('error', () => response.destroy());
    request.pipe(outgoing);
  });
}
