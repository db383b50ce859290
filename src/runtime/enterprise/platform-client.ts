import { readFile } from 'node:fs/promises';
import { isAbsolute } from 'node:path';
import { InvalidInputError } from '../../core/errors.js';
import type { FetchLike } from '../../core/signing/jwks-source.js';
import { BadGatewayError, GatewayTimeoutError } from '../registry/errors.js';

/** The platform accepts three client types; the runtime is a command-line service. */
export const CLIENT_TYPE = 'service-cli';
const WELL_KNOWN = '/.well-known/toolyard-configuration';
const CONFIG_PATH = /\/v1\/configuration\/?$/;

export type PlatformFetch = (url: string, init: { headers: Record<string, string>; signal: AbortSignal }) => Promise<Response>;

/** A platform that could not be asked at all (refused, reset, timed out) or that failed on its side (5xx). */
export class UnreachableError extends GatewayTimeoutError {}

export interface PlatformClientOptions {
  fetch: PlatformFetch;
  version: string;
  timeoutMs: number;
}

export interface Endpoints {
  config_url: string;
  jwks_uri: string;
}

export type EnvelopeAnswer = { status: 'not_modified' } | { status: 'ok'; text: string };

export async function readToken(tokenFile: string | undefined): Promise<string | undefined> {
  if (tokenFile === undefined) return undefined;
  if (!isAbsolute(tokenFile)) throw new InvalidInputError(`token_file must be an absolute path, not "${tokenFile}"`);
  let token: string;
  try {
    token = (await readFile(tokenFile, 'utf8')).trim();
  } catch (error) {
    throw new InvalidInputError(`token_file: cannot read ${tokenFile} (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  if (token === '') throw new InvalidInputError(`token_file: ${tokenFile} is empty`);
  return token;
}

export function parsePlatformUrl(value: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new InvalidInputError(`url: "${value}" is not a URL; give the platform's base URL (https://platform.example.com) or its configuration URL (…/v1/configuration)`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new InvalidInputError(`url: ${url.protocol} URLs are not supported; use http or https`);
  return url;
}

/** Talks to the platform: discovery, the envelope (conditional), and the JWKS, with the client headers and the token. */
export function createPlatformClient(options: PlatformClientOptions) {
  const get = async (url: string, headers: Record<string, string>): Promise<Response> => {
    let response: Response;
    try {
      response = await options.fetch(url, { headers, signal: AbortSignal.timeout(options.timeoutMs) });
    } catch (error) {
      const { cause } = error as { cause?: { code?: string; message?: string } };
      const reason = cause?.code ?? cause?.message ?? (error as Error).name;
      throw new UnreachableError(`the platform at ${new URL(url).host} cannot be reached (${reason})`);
    }
    if (response.status >= 500) throw new UnreachableError(`${url} answered ${String(response.status)}`);
    return response;
  };
  const auth = (token: string | undefined): Record<string, string> => (token === undefined ? {} : { authorization: `Bearer ${token}` });
  const json = async (url: string, token: string | undefined): Promise<Record<string, unknown> | undefined> => {
    const response = await get(url, { accept: 'application/json', ...auth(token) });
    if (response.status === 404) return undefined;
    if (!response.ok) throw new BadGatewayError(`${url} answered ${String(response.status)}`);
    try {
      const body: unknown = await response.json();
      return typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
    } catch {
      throw new BadGatewayError(`${url} did not answer JSON`);
    }
  };

  return {
    /**
     * A configuration URL is used as it is (its keys from the origin's discovery, else the contract's
     * JWKS path); any other URL is a base where discovery names both.
     */
    discover: async (value: string, token: string | undefined): Promise<Endpoints> => {
      const url = parsePlatformUrl(value);
      if (CONFIG_PATH.test(url.pathname)) {
        const found = await json(`${url.origin}${WELL_KNOWN}`, token);
        const jwks = typeof found?.jwks_uri === 'string' ? found.jwks_uri : `${url.origin}/.well-known/jwks.json`;
        return { config_url: url.href, jwks_uri: jwks };
      }
      const base = url.href.replace(/\/+$/, '');
      const found = await json(`${base}${WELL_KNOWN}`, token);
      if (typeof found?.config_endpoint !== 'string' || typeof found.jwks_uri !== 'string') {
        throw new BadGatewayError(`${base}${WELL_KNOWN} is not a client configuration discovery document; give the configuration URL (…/v1/configuration) instead`);
      }
      parsePlatformUrl(found.config_endpoint);
      return { config_url: found.config_endpoint, jwks_uri: found.jwks_uri };
    },
    envelope: async (configUrl: string, etag: string | undefined, token: string | undefined): Promise<EnvelopeAnswer> => {
      const headers = { accept: 'application/json', 'x-client-type': CLIENT_TYPE, 'x-client-version': options.version, ...auth(token), ...(etag !== undefined && { 'if-none-match': `"${etag}"` }) };
      const response = await get(configUrl, headers);
      if (response.status === 304) return { status: 'not_modified' };
      if (!response.ok) throw new BadGatewayError(`${configUrl} answered ${String(response.status)}`);
      return { status: 'ok', text: await response.text() };
    },
    /** For the JWKS source: the token goes only to the platform's own origin. */
    fetchText: (configUrl: string, token: string | undefined): FetchLike => async (url, init) => {
      const sameOrigin = new URL(url).origin === new URL(configUrl).origin;
      return get(url, { ...init?.headers, ...(sameOrigin ? auth(token) : {}) });
    },
  };
}

export type PlatformClient = ReturnType<typeof createPlatformClient>;
