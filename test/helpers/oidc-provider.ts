import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, request as httpRequest, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, UnsecuredJWT, type CryptoKey, type JWK } from 'jose';
import type { Logger } from 'pino';
import type { Clock } from '../../src/core/clock.js';
import type { TestDatabaseTarget } from '../../src/core/db/database-testing.js';
import { silentLogger } from '../../src/core/telemetry/logger.js';
import { buildRegistryApp, type RegistryApp } from '../../src/registry/app.js';
import { registryConfig } from './registry.js';

/*
 * A local OpenID provider for the end-to-end auth suites, and the registry server started on a real
 * port in front of it. The provider serves OIDC discovery, a JWKS whose keys rotate, and RFC 7662
 * introspection for opaque tokens; it mints tokens per persona and counts what the registry fetched.
 */

export type SigningAlg = 'RS256' | 'ES256';

export interface MintOptions {
  sub: string;
  claims?: Record<string, unknown>;
  /** Default: the provider's audience. */
  aud?: string | string[];
  /** Seconds since the epoch; default 10 minutes from now; null leaves `exp` out. */
  exp?: number | null;
  /** Seconds since the epoch. */
  nbf?: number;
  /** Default: the current key of the algorithm; null leaves `kid` out of the header. */
  kid?: string | null;
  /** RS256 (default) or ES256; HS256 signs with a shared secret and `none` leaves the token unsigned. */
  alg?: SigningAlg | 'HS256' | 'none';
  /** Default: the provider's issuer. */
  iss?: string;
  /** Signs with a key this provider never published, under the current kid: a forged signature. */
  forge?: boolean;
  /** Signs with an unpublished key and carries its public half in the header (`jwk`), as an attacker would. */
  embedJwk?: boolean;
}

export interface OpaqueOptions {
  sub: string;
  claims?: Record<string, unknown>;
  aud?: string | string[];
  /** Seconds since the epoch; default 10 minutes from now. */
  exp?: number;
  active?: boolean;
  iss?: string;
}

export interface OidcProvider {
  /** http://127.0.0.1:PORT, also the `iss` of its tokens. */
  readonly issuer: string;
  readonly audience: string;
  readonly jwksUri: string;
  /** Requests the provider answered, by endpoint. */
  readonly counts: { discovery: number; jwks: number; introspection: number };
  /** The kid of the current key of an algorithm. */
  kid(alg?: SigningAlg): string;
  mint(options: MintOptions): Promise<string>;
  /** A new key pair per algorithm, with new kids; the old ones leave the JWKS. */
  rotate(): Promise<void>;
  /** An opaque (non-JWT) token that only introspection can resolve. */
  opaque(options: OpaqueOptions): string;
  close(): Promise<void>;
}

interface SigningKey {
  kid: string;
  privateKey: CryptoKey;
  publicJwk: JWK;
}

export const nowSeconds = (): number => Math.floor(Date.now() / 1000);

async function newKey(alg: SigningAlg): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg);
  const kid = `${alg.toLowerCase()}-${randomUUID().slice(0, 8)}`;
  return { kid, privateKey, publicJwk: { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' } };
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => (body += chunk));
    request.on('end', () => resolve(body));
    request.on('error', reject);
  });
}

function sendJson(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

/**
 * Starts a provider on a loopback port. With `introspectionClient`, its introspection endpoint
 * answers only that client (HTTP Basic, form-encoded id and secret as RFC 6749 2.3.1 says).
 */
export async function startOidcProvider(options: { audience: string; introspectionClient?: { id: string; secret: string } }): Promise<OidcProvider> {
  const keys: Record<SigningAlg, SigningKey> = { RS256: await newKey('RS256'), ES256: await newKey('ES256') };
  const forgery: Record<SigningAlg, SigningKey> = { RS256: await newKey('RS256'), ES256: await newKey('ES256') };
  const counts = { discovery: 0, jwks: 0, introspection: 0 };
  const opaqueTokens = new Map<string, Record<string, unknown>>();
  let issuer = '';

  function clientAllowed(header: string | undefined): boolean {
    const client = options.introspectionClient;
    if (!client || !header?.startsWith('Basic ')) return false;
    const decoded = Buffer.from(header.slice('Basic '.length), 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon < 0) return false;
    return decodeURIComponent(decoded.slice(0, colon)) === client.id && decodeURIComponent(decoded.slice(colon + 1)) === client.secret;
  }

  const server = createServer((request, response) => {
    void (async () => {
      const path = (request.url ?? '/').split('?')[0];
      if (request.method === 'GET' && path === '/.well-known/openid-configuration') {
        counts.discovery += 1;
        return sendJson(response, 200, {
          issuer,
          jwks_uri: `${issuer}/jwks`,
          introspection_endpoint: `${issuer}/introspect`,
          id_token_signing_alg_values_supported: ['RS256', 'ES256'],
        });
      }
      if (request.method === 'GET' && path === '/jwks') {
        counts.jwks += 1;
        return sendJson(response, 200, { keys: [keys.RS256.publicJwk, keys.ES256.publicJwk] });
      }
      if (request.method === 'POST' && path === '/introspect') {
        counts.introspection += 1;
        const body = new URLSearchParams(await readBody(request));
        if (!clientAllowed(request.headers.authorization)) return sendJson(response, 401, { error: 'invalid_client' });
        const token = opaqueTokens.get(body.get('token') ?? '');
        return sendJson(response, 200, token ?? { active: false });
      }
      return sendJson(response, 404, { error: 'not_found' });
    })().catch(() => sendJson(response, 500, { error: 'server_error' }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    issuer,
    audience: options.audience,
    jwksUri: `${issuer}/jwks`,
    counts,
    kid: (alg = 'RS256') => keys[alg].kid,
    async mint(mint) {
      const alg = mint.alg ?? 'RS256';
      const now = nowSeconds();
      const payload = { ...mint.claims, jti: randomUUID() };
      const build = <T extends SignJWT | UnsecuredJWT>(jwt: T): T => {
        jwt.setSubject(mint.sub).setIssuer(mint.iss ?? issuer).setAudience(mint.aud ?? options.audience).setIssuedAt(now);
        if (mint.exp !== null) jwt.setExpirationTime(mint.exp ?? now + 600);
        if (mint.nbf !== undefined) jwt.setNotBefore(mint.nbf);
        return jwt;
      };
      if (alg === 'none') return build(new UnsecuredJWT(payload)).encode();
      if (alg === 'HS256') {
        // the kid of a real key, so only the algorithm tells the registry to refuse it
        return build(new SignJWT(payload)).setProtectedHeader({ alg, kid: keys.RS256.kid }).sign(randomBytes(32));
      }
      const key = (mint.forge || mint.embedJwk ? forgery : keys)[alg];
      const kid = mint.kid === undefined ? keys[alg].kid : mint.kid;
      const embedded: JWK = { ...forgery[alg].publicJwk };
      delete embedded.kid;
      return build(new SignJWT(payload))
        .setProtectedHeader({ alg, typ: 'JWT', ...(kid !== null && { kid }), ...(mint.embedJwk && { jwk: embedded }) })
        .sign(key.privateKey);
    },
    async rotate() {
      keys.RS256 = await newKey('RS256');
      keys.ES256 = await newKey('ES256');
    },
    opaque(opaque) {
      const token = randomBytes(24).toString('base64url');
      opaqueTokens.set(token, {
        active: opaque.active ?? true,
        ...opaque.claims,
        sub: opaque.sub,
        aud: opaque.aud ?? options.audience,
        iss: opaque.iss ?? issuer,
        exp: opaque.exp ?? nowSeconds() + 600,
        token_type: 'Bearer',
      });
      return token;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export interface HttpResult<T> {
  status: number;
  headers: Headers;
  body: T;
}

export interface RawResult {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/** The registry server listening on a loopback port, called over real HTTP. */
export interface LiveRegistry {
  app: RegistryApp;
  /** http://127.0.0.1:PORT */
  url: string;
  call<T = unknown>(method: string, path: string, options?: { token?: string; body?: unknown; headers?: Record<string, string> }): Promise<HttpResult<T>>;
  /** A GET whose path reaches the server byte for byte (fetch would resolve `..` and `%2e%2e`). */
  raw(path: string, headers?: Record<string, string>): Promise<RawResult>;
  /** Runs every due sync to its end (a run takes at most `sync.concurrency` sources), then refreshes the read model. */
  sync(): Promise<void>;
  /** The request-counter lines of the metrics that record a 5xx answer. */
  serverErrors(): Promise<string[]>;
  close(): Promise<void>;
}

export async function startLiveRegistry(options: {
  config: Record<string, unknown>;
  target?: TestDatabaseTarget;
  clock?: Clock;
  logger?: Logger;
  jwksCooldownMs?: number;
}): Promise<LiveRegistry> {
  const created = options.target ? await options.target.create() : undefined;
  const app = await buildRegistryApp({
    config: registryConfig({ database: { dataDir: 'memory://' }, ...options.config }),
    ...(created && { database: created.database as never }),
    logger: options.logger ?? silentLogger,
    backgroundSync: false,
    jwksCooldownMs: options.jwksCooldownMs ?? 0,
    ...(options.clock && { clock: options.clock }),
  });
  const sync = async () => {
    while ((await app.scheduler.runDue()).size > 0);
    await app.readModel.refresh();
  };
  await sync();
  await app.http.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.http.server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;

  const live: LiveRegistry = {
    app,
    url,
    sync,
    async call(method, path, callOptions = {}) {
      const headers: Record<string, string> = { ...callOptions.headers };
      if (callOptions.token !== undefined) headers.authorization = `Bearer ${callOptions.token}`;
      if (callOptions.body !== undefined) headers['content-type'] = 'application/json';
      const response = await fetch(`${url}${path}`, {
        method,
        headers,
        ...(callOptions.body !== undefined && { body: JSON.stringify(callOptions.body) }),
      });
      const text = await response.text();
      const json: unknown = text === '' ? undefined : response.headers.get('content-type')?.includes('json') ? JSON.parse(text) : text;
      return { status: response.status, headers: response.headers, body: json as never };
    },
    raw(path, headers = {}) {
      return new Promise((resolve, reject) => {
        const outgoing = httpRequest({ host: '127.0.0.1', port, path, method: 'GET', headers }, (response) => {
          let body = '';
          response.setEncoding('utf8');
          response.on('data', (chunk: string) => (body += chunk));
          response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body }));
        });
        outgoing.on('error', reject);
        outgoing.end();
      });
    },
    async serverErrors() {
      const { body } = await live.call<string>('GET', '/metrics');
      return body.split('\n').filter((line) => /^toolyard_http_requests_total\{[^}]*status="5\d\d"/.test(line));
    },
    async close() {
      await app.close();
      await created?.drop();
    },
  };
  return live;
}
