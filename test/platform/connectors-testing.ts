import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';

/** A stateless MCP server (Streamable HTTP, any path) that answers 401 unless the request carries `header: value` (or a value `value` accepts). */
export interface GuardedMcpServer {
  url: string;
  close(): Promise<void>;
}

export async function startGuardedMcpServer(header: string, value: string | ((received: string | undefined) => boolean)): Promise<GuardedMcpServer> {
  const accepts = typeof value === 'string' ? (received: string | undefined) => received === value : value;
  const server: Server = createServer((request, response) => {
    const received = request.headers[header.toLowerCase()];
    if (!accepts(typeof received === 'string' ? received : undefined)) {
      response.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify({ error: `missing ${header}` }));
      return;
    }
    const mcp = new McpServer({ name: 'guarded', version: '1.0.0' });
    mcp.registerTool('ping', { description: 'answers pong' }, () => ({ content: [{ type: 'text', text: 'pong' }] }));
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    response.once('close', () => void transport.close().then(() => mcp.close()));
    void mcp.connect(transport).then(() => transport.handleRequest(request, response));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${String(port)}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
