import { STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Logger } from 'pino';

/** What Node's HTTP parser found wrong, as status and a sentence for the client (llhttp error codes). */
const PARSER_ERRORS: Record<string, [number, string]> = {
  HPE_HEADER_OVERFLOW: [431, 'the request line and headers are larger than 16 KiB: shorten the URL or the headers'],
  HPE_CHUNK_EXTENSIONS_OVERFLOW: [413, 'the chunk extensions of the request body are too large'],
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'the request was not received in time'],
  HPE_INVALID_METHOD: [400, 'the request method is not a valid HTTP method'],
  HPE_INVALID_CONSTANT: [400, 'the request line must read METHOD /path HTTP/1.1 (write a space in the path as %20)'],
  HPE_INVALID_URL: [400, 'the request target is not a valid URL path'],
  HPE_INVALID_VERSION: [400, 'the HTTP version in the request line is not valid (use HTTP/1.1)'],
  HPE_INVALID_HEADER_TOKEN: [400, 'a request header has an invalid name or a control character in its value'],
  HPE_INVALID_CONTENT_LENGTH: [400, 'the Content-Length header is not a single decimal number'],
  HPE_UNEXPECTED_CONTENT_LENGTH: [400, 'the Content-Length header is sent twice or beside Transfer-Encoding: send one of them, once'],
  HPE_INVALID_TRANSFER_ENCODING: [400, 'the Transfer-Encoding header is not valid: send chunked alone, without Content-Length'],
  HPE_INVALID_CHUNK_SIZE: [400, 'a chunk of the request body has an invalid size line'],
};

/**
 * Writes a complete `{error}` answer on a socket that no ServerResponse owns (the parser failed, or
 * the request never reaches a handler), and closes it: what follows on the socket cannot be trusted.
 */
function answerOnSocket(socket: Duplex, status: number, error: string, headers: Record<string, string> = {}): void {
  if (!socket.writable) return;
  const body = JSON.stringify({ error });
  const lines = Object.entries({
    ...headers,
    'content-type': 'application/json; charset=utf-8',
    'content-length': String(Buffer.byteLength(body)),
    connection: 'close',
  }).map(([name, value]) => `${name}: ${value}\r\n`);
  socket.end(`HTTP/1.1 ${String(status)} ${STATUS_CODES[status] ?? ''}\r\n${lines.join('')}\r\n${body}`);
  // a client that keeps its side open would hold the socket for ever
  setTimeout(() => socket.destroy(), 5_000).unref();
}

/** Fastify's `clientErrorHandler`: answers what Node's parser refuses in the `{error}` shape. */
export function createClientErrorHandler(logger: Logger): (error: NodeJS.ErrnoException, socket: Duplex) => void {
  return (error, socket) => {
    // the peer is gone: nobody to answer
    if (error.code === 'ECONNRESET' || socket.destroyed) return;
    logger.debug({ err: error }, 'malformed request');
    const [status, message] = PARSER_ERRORS[error.code ?? ''] ?? [400, 'the request is not valid HTTP/1.1'];
    answerOnSocket(socket, status, message);
  };
}

/**
 * Node answers some requests before any handler sees them: an `Expect` other than 100-continue (417
 * with an empty body) and CONNECT (the connection closed without an answer). These listeners give
 * both a status with the `{error}` body.
 */
export function answerUnroutedRequests(server: Server, allowedMethods: () => string[]): void {
  server.on('checkExpectation', (request: IncomingMessage, response: ServerResponse) => {
    const body = JSON.stringify({ error: `Expect: ${request.headers.expect ?? ''} is not supported; only 100-continue is` });
    response.writeHead(417, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body), connection: 'close' }).end(body);
  });
  server.on('connect', (_request: IncomingMessage, socket: Duplex) => {
    // Node hands the socket over without its error listener: a reset must not end the process
    socket.on('error', () => socket.destroy());
    const allowed = allowedMethods().join(', ');
    answerOnSocket(socket, 405, `CONNECT is not supported: this server is not a proxy; use ${allowed}`, { allow: allowed });
  });
}
