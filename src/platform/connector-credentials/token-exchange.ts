import { createHash } from 'node:crypto';
import { Agent, fetch as undiciFetch } from 'undici';
import type { Clock } from '../../core/clock.js';
import { createGuardedLookup, PrivateAddressError, privateHostLiteral, type Fetch } from '../../core/net/address-guard.js';
import type { StoredAuth } from '../connectors/tables.js';
import { CredentialError } from './credentials.js';

export type TokenExchangeBlock = NonNullable<StoredAuth['token_exchange']>;

export interface ExchangeRequest {
  connectorId: string;
  block: TokenExchangeBlock;
  allowPrivateIps: boolean;
  /** The caller's JWT (RFC 8693 subject_token). */
  subjectToken: string;
  /** Read only when the cache cannot answer: a secret is not fetched for every call. */
  clientSecret(): Promise<string | undefined>;
}

/** RFC 8693 token exchange at a connector's token endpoint, with the issued tokens cached. */
export interface TokenExchanger {
  /** The issued access token; throws CredentialError naming the failure. */
  exchange(request: ExchangeRequest): Promise<string>;
}

export interface TokenExchangerOptions {
  clock: Clock;
  fetch?: Fetch;
  /** The whole exchange (connect, send, answer); default 10 s. */
  timeoutMs?: number;
  /** Cached tokens kept at most (oldest dropped first); default 10 000. */
  maxEntries?: number;
}

const URN = 'urn:ietf:params:oauth:token-type:';
const GRANT_TYPE = 'urn:ietf:params:oauth:grant-type:token-exchange';
/** PLATFORM-API Part 4 §7 item 4: a token is used until 30 s before it expires. */
const EXPIRY_MARGIN_MS = 30_000;
const MAX_ANSWER_BYTES = 64 * 1024;
const MAX_DESCRIPTION = 300;
/** RFC 6749 §5.2: the characters an error code may use. */
const ERROR_CODE = /^[\x20\x21\x23-\x5b\x5d-\x7e]{1,64}$/;

interface Cached {
  token: string;
  expiresAt: number;
}

/** RFC 6749 §2.3.1: id and secret are form-encoded before they are joined and base64-encoded. */
function basicAuthorization(clientId: string, secret: string): string {
  const encode = (value: string) => new URLSearchParams({ v: value }).toString().slice(2);
  return `Basic ${Buffer.from(`${encode(clientId)}:${encode(secret)}`).toString('base64')}`;
}

function subjectTokenTypeUrn(type: string): string {
  return type.startsWith('urn:') ? type : `${URN}${type}`;
}

/** The cache key: the connector, its exchange settings (a changed token_url must not reuse tokens) and the caller's token. */
function cacheKey(request: ExchangeRequest): string {
  return createHash('sha256').update(request.connectorId).update('\0').update(JSON.stringify(request.block)).update('\0').update(request.subjectToken).digest('hex');
}

function chainOf(error: unknown): unknown[] {
  const chain: unknown[] = [];
  for (let current = error; current !== undefined && current !== null && chain.length < 6; current = (current as { cause?: unknown }).cause) chain.push(current);
  return chain;
}

async function readLimited(body: AsyncIterable<Uint8Array> | null): Promise<string | undefined> {
  if (!body) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.byteLength;
    if (size > MAX_ANSWER_BYTES) return undefined;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function parseJson(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

export function createTokenExchanger(options: TokenExchangerOptions): TokenExchanger {
  const { clock } = options;
  const fetch = options.fetch ?? undiciFetch;
  const timeoutMs = options.timeoutMs ?? 10_000;
  const maxEntries = options.maxEntries ?? 10_000;
  const describeRefusal = (host: string, address: string) => `${host} resolves to the private address ${address}; set allow_private_ips: true on the connector to allow it`;
  const guarded = new Agent({ connect: { lookup: createGuardedLookup({ describe: describeRefusal }) } });
  const open = new Agent();
  const cache = new Map<string, Cached>();
  const pending = new Map<string, Promise<Cached>>();

  function remember(key: string, entry: Cached): void {
    if (entry.expiresAt <= clock.now().getTime()) return;
    cache.delete(key);
    cache.set(key, entry);
    while (cache.size > maxEntries) {
      const oldest = cache.keys().next().value;
      if (oldest === undefined) break;
      cache.delete(oldest);
    }
  }

  async function post(request: ExchangeRequest): Promise<Cached> {
    const { block, subjectToken } = request;
    const url = new URL(block.token_url);
    const where = `token exchange at ${url.origin}${url.pathname}`;
    const secret = await request.clientSecret();
    const form = new URLSearchParams({
      grant_type: GRANT_TYPE,
      subject_token: subjectToken,
      subject_token_type: subjectTokenTypeUrn(block.subject_token_type),
      requested_token_type: `${URN}access_token`,
    });
    if (block.audience !== null) form.set('audience', block.audience);
    if (block.scopes.length > 0) form.set('scope', block.scopes.join(' '));
    const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' };
    if (secret !== undefined) {
      if (block.client_id === null) throw new CredentialError(`${where}: auth.token_exchange.client_secret is set but client_id is not; set auth.token_exchange.client_id`);
      headers.authorization = basicAuthorization(block.client_id, secret);
    } else if (block.client_id !== null) form.set('client_id', block.client_id);

    // what the endpoint says is shown to people, so the values sent are masked (as sent, too) should it echo them
    const forms = (value: string) => [value, encodeURIComponent(value), new URLSearchParams({ v: value }).toString().slice(2), Buffer.from(value).toString('base64')];
    const hidden = [subjectToken, secret].flatMap((value) => (value ? forms(value) : [])).sort((a, b) => b.length - a.length);
    const mask = (text: string) => hidden.reduce((masked, value) => masked.split(value).join('[redacted]'), text);
    if (!request.allowPrivateIps) {
      const literal = privateHostLiteral(url.hostname);
      if (literal !== undefined) throw new CredentialError(`${where}: ${describeRefusal(url.hostname, literal)}`);
    }
    let response: Awaited<ReturnType<Fetch>>;
    try {
      response = await fetch(url, {
        method: 'POST',
        headers,
        body: form.toString(),
        redirect: 'manual',
        signal: AbortSignal.timeout(timeoutMs),
        dispatcher: request.allowPrivateIps ? open : guarded,
      });
    } catch (error) {
      const chain = chainOf(error);
      const refused = chain.find((entry) => entry instanceof PrivateAddressError);
      if (refused instanceof Error) throw new CredentialError(`${where}: ${refused.message}`);
      if (chain.some((entry) => entry instanceof Error && entry.name === 'TimeoutError')) throw new CredentialError(`${where}: no answer within ${String(timeoutMs / 1000)} s`);
      throw new CredentialError(`${where}: the token endpoint could not be reached`);
    }
    const text = await readLimited(response.body);
    if (text === undefined) throw new CredentialError(`${where}: the answer is larger than ${String(MAX_ANSWER_BYTES / 1024)} KiB`);
    const answer = parseJson(text);
    if (response.status !== 200) {
      // RFC 8693 §2.2.2 (RFC 6749 §5.2): {error, error_description}
      const code = typeof answer?.error === 'string' && ERROR_CODE.test(answer.error) ? answer.error : undefined;
      if (code === undefined) throw new CredentialError(`${where}: the token endpoint answered HTTP ${String(response.status)}`);
      // masked before it is cut, so that no part of a secret is left at the cut
      const description = typeof answer?.error_description === 'string' ? `: ${mask(answer.error_description).slice(0, MAX_DESCRIPTION)}` : '';
      throw new CredentialError(`${where}: ${mask(code)}${description}`);
    }
    const token = answer?.access_token;
    if (typeof token !== 'string' || token === '') throw new CredentialError(`${where}: the answer has no access_token`);
    const expiresIn = answer?.expires_in;
    // without expires_in the token's life is unknown: it is used for this call only
    const expiresAt = typeof expiresIn === 'number' && Number.isFinite(expiresIn) ? clock.now().getTime() + expiresIn * 1000 - EXPIRY_MARGIN_MS : 0;
    return { token, expiresAt };
  }

  return {
    async exchange(request) {
      const key = cacheKey(request);
      const cached = cache.get(key);
      if (cached && cached.expiresAt > clock.now().getTime()) return cached.token;
      if (cached) cache.delete(key);
      // concurrent calls of one caller share one exchange
      let flight = pending.get(key);
      if (!flight) {
        flight = post(request).finally(() => pending.delete(key));
        pending.set(key, flight);
      }
      const entry = await flight;
      remember(key, entry);
      return entry.token;
    },
  };
}
