/**
 * The HTTP floor of bench/proxy.ts: a bare node:http server that answers the JSON-RPC messages of an
 * echo `tools/call` session the way an MCP server behind Streamable HTTP would, with no MCP work
 * behind it (no process, no routing, no schema validation). What a client pays to reach it is the
 * cost of HTTP itself, so no proxy can be faster.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';

interface Envelope {
  id?: string | number | null;
  method?: string;
  params?: { protocolVersion?: unknown; arguments?: { message?: unknown } };
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function answer(res: ServerResponse, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

/** The result of each method, shaped like server-everything's own answers. */
function result(message: Envelope): unknown {
  switch (message.method) {
    case 'initialize':
      return {
        protocolVersion: message.params?.protocolVersion,
        capabilities: { tools: { listChanged: true } },
        serverInfo: { name: 'http-floor', version: '1.0.0' },
      };
    case 'tools/call':
      return { content: [{ type: 'text', text: `Echo: ${String(message.params?.arguments?.message)}` }] };
    default:
      return {};
  }
}

async function post(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const message = JSON.parse(await readBody(req)) as Envelope;
  if (message.id === undefined || message.id === null) {
    res.writeHead(202).end();
    return;
  }
  const headers: Record<string, string> = message.method === 'initialize' ? { 'mcp-session-id': randomUUID() } : {};
  answer(res, { jsonrpc: '2.0', id: message.id, result: result(message) }, headers);
}

export function createFloorServer(): Server {
  return createServer((req, res) => {
    if (req.method === 'POST') {
      post(req, res).catch(() => res.writeHead(400).end());
    } else if (req.method === 'DELETE') {
      res.writeHead(204).end();
    } else {
      // The client then knows there is no standalone event stream and does not hold one open.
      res.writeHead(405, { allow: 'POST, DELETE' }).end();
    }
  });
}
