import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One exchange the fake endpoint received, as it understood it. */
export interface ReceivedExchange {
  form: Record<string, string>;
  /** The client authenticated with HTTP Basic (RFC 6749 §2.3.1), decoded. */
  basic: { clientId: string; secret: string } | undefined;
}

export interface FakeTokenEndpoint {
  url: string;
  received: ReceivedExchange[];
  /** What the next answers carry: `expires_in` (default 120; null leaves it out). */
  expiresIn: number | null;
  close(): Promise<void>;
}

const TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:';
const SUBJECT_TYPES = new Set(['access_token', 'id_token', 'jwt'].map((type) => `${TOKEN_TYPE}${type}`));

function read(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}

function basicOf(header: string | undefined): ReceivedExchange['basic'] {
  if (!header?.startsWith('Basic ')) return undefined;
  const decoded = Buffer.from(header.slice(6), 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return { clientId: decodeURIComponent(decoded.slice(0, colon).replace(/\+/g, ' ')), secret: decodeURIComponent(decoded.slice(colon + 1).replace(/\+/g, ' ')) };
}

/**
 * An RFC 8693 token endpoint on 127.0.0.1 that checks requests as a real one does: the grant type, the
 * subject token and its type, and the client (Basic with `client`/`secret`, or the public `client_id` `public`).
 * A subject token `rejected` gets invalid_grant; `echo:<text>` gets invalid_request echoing the whole form.
 */
export async function startFakeTokenEndpoint(client: { id: string; secret: string } = { id: 'gateway', secret: 's3cr3t' }): Promise<FakeTokenEndpoint> {
  const received: ReceivedExchange[] = [];
  let issued = 0;
  const state = { expiresIn: 120 as number | null };
  const server = createServer((request, response) => {
    const fail = (status: number, error: string, description: string) =>
      response.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' }).end(JSON.stringify({ error, error_description: description }));
    void read(request).then((text) => {
      if (request.method !== 'POST' || !request.headers['content-type']?.startsWith('application/x-www-form-urlencoded')) {
        fail(400, 'invalid_request', 'POST an application/x-www-form-urlencoded body');
        return;
      }
      const form = Object.fromEntries(new URLSearchParams(text));
      const basic = basicOf(request.headers.authorization);
      received.push({ form, basic });
      const clientOk = basic ? basic.clientId === client.id && basic.secret === client.secret && form.client_id === undefined : form.client_id === 'public';
      if (!clientOk) return fail(401, 'invalid_client', 'client authentication failed');
      if (form.grant_type !== 'urn:ietf:params:oauth:grant-type:token-exchange') return fail(400, 'unsupported_grant_type', 'only token exchange');
      if (!form.subject_token || !SUBJECT_TYPES.has(form.subject_token_type ?? '')) return fail(400, 'invalid_request', 'subject_token and subject_token_type are required');
      if (form.requested_token_type !== undefined && form.requested_token_type !== `${TOKEN_TYPE}access_token`) return fail(400, 'invalid_request', 'only access tokens are issued');
      if (form.subject_token === 'rejected') return fail(400, 'invalid_grant', 'the subject token is not valid here');
      if (form.subject_token.startsWith('echo:')) return fail(400, 'invalid_request', `got ${text} from ${basic?.secret ?? ''}`);
      issued++;
      response.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' }).end(
        JSON.stringify({
          access_token: `issued-${String(issued)}`,
          issued_token_type: `${TOKEN_TYPE}access_token`,
          token_type: 'Bearer',
          ...(state.expiresIn !== null && { expires_in: state.expiresIn }),
          ...(form.scope !== undefined && { scope: form.scope }),
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const endpoint: FakeTokenEndpoint = {
    url: `http://127.0.0.1:${String((server.address() as AddressInfo).port)}/oauth/token`,
    received,
    get expiresIn() {
      return state.expiresIn;
    },
    set expiresIn(value) {
      state.expiresIn = value;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return endpoint;
}
