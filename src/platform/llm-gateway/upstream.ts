import { readFileSync } from 'node:fs';
import type { IncomingHttpHeaders } from 'node:http';
import { Pool, errors, type Dispatcher } from 'undici';
import type { PlatformConfig } from '../config.js';
import type { WireFormat } from '../keys/gateway-auth.js';

/*
 * The upstream providers (PLATFORM-API Part 3 §1 "Upstreams"): one connection pool per upstream origin,
 * URLs and credentials as each provider's SDK sends them, and only the client headers a provider reads.
 */

type ProviderConfig = PlatformConfig['llmGateway']['providers'][number];

export interface UpstreamRequest {
  /** The route's wire format: the native route of the provider, or chat completions through its OpenAI-compatible URL. */
  format: WireFormat;
  /** The model as the upstream knows it. */
  model: string;
  /** Gemini: `generateContent` or `streamGenerateContent`. */
  geminiMethod?: string;
  /** The client's headers (only some are forwarded). */
  headers: IncomingHttpHeaders;
  body: Buffer | string;
}

export interface ProviderUpstream {
  name: string;
  wireFormat: WireFormat;
  /** Whether the provider's models are served on the route of `format` (check 5 of admission). */
  serves(format: WireFormat): boolean;
  /** Sends the request; its answer, or its failure, comes to `handler` (undici's dispatch callbacks). */
  dispatch(request: UpstreamRequest, handler: Dispatcher.DispatchHandler): void;
}

export interface Upstreams {
  get(provider: string): ProviderUpstream | undefined;
  /** The provider named first for a wire format: preferred when several providers price a model of the same name. */
  preferredFor(format: WireFormat): string;
  close(): Promise<void>;
}

export type UpstreamFailure = 'unavailable' | 'timeout';

export interface UpstreamsOptions {
  providers: ProviderConfig[];
  connectTimeoutMs: number;
  upstreamTimeoutMs: number;
}

const NATIVE_NAMES: Record<WireFormat, string> = { openai: 'openai', anthropic: 'anthropic', gemini: 'gemini' };
const DEFAULT_ANTHROPIC_VERSION = '2023-06-01';

function forwardedHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const forwarded: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    if (name === 'content-type' || name === 'accept' || name === 'user-agent' || name.startsWith('anthropic-')) forwarded[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return forwarded;
}

/** An upstream base URL split into the pool's origin and the path prefix of its routes. */
function endpoint(base: string, options: UpstreamsOptions, pools: Pool[]): { pool: Pool; prefix: string } {
  const url = new URL(base);
  const pool = new Pool(url.origin, { connect: { timeout: options.connectTimeoutMs }, headersTimeout: options.upstreamTimeoutMs, bodyTimeout: 0 });
  pools.push(pool);
  return { pool, prefix: url.pathname.replace(/\/+$/, '') };
}

/** Reads each provider's API key file (at start; never logged) and opens its pools. */
export function createUpstreams(options: UpstreamsOptions): Upstreams {
  const pools: Pool[] = [];
  const byName = new Map<string, ProviderUpstream>();
  for (const provider of options.providers) {
    const apiKey = readApiKey(provider);
    const native = endpoint(provider.baseUrl, options, pools);
    const compatible = provider.openaiBaseUrl === undefined ? undefined : endpoint(provider.openaiBaseUrl, options, pools);
    const send = (target: { pool: Pool; prefix: string }, path: string, auth: Record<string, string>, request: UpstreamRequest, handler: Dispatcher.DispatchHandler) => {
      target.pool.dispatch({ method: 'POST', path: `${target.prefix}${path}`, headers: { ...forwardedHeaders(request.headers), ...auth }, body: request.body }, handler);
    };
    byName.set(provider.name, {
      name: provider.name,
      wireFormat: provider.wireFormat,
      serves: (format) => format === provider.wireFormat || (format === 'openai' && compatible !== undefined),
      dispatch(request, handler) {
        if (request.format === 'openai') {
          const target = provider.wireFormat === 'openai' ? native : compatible;
          if (!target) throw new Error(`provider ${provider.name} has no OpenAI-compatible URL`);
          return send(target, '/chat/completions', { authorization: `Bearer ${apiKey}` }, request, handler);
        }
        if (request.format === 'anthropic') {
          const auth: Record<string, string> = { 'x-api-key': apiKey };
          if (request.headers['anthropic-version'] === undefined) auth['anthropic-version'] = DEFAULT_ANTHROPIC_VERSION;
          return send(native, '/v1/messages', auth, request, handler);
        }
        const method = request.geminiMethod ?? 'generateContent';
        const query = method === 'streamGenerateContent' ? '?alt=sse' : '';
        return send(native, `/v1beta/models/${encodeURIComponent(request.model)}:${method}${query}`, { 'x-goog-api-key': apiKey }, request, handler);
      },
    });
  }
  return {
    get: (name) => byName.get(name),
    preferredFor: (format) => options.providers.find((provider) => provider.wireFormat === format)?.name ?? NATIVE_NAMES[format],
    async close() {
      await Promise.all(pools.map((pool) => pool.close()));
    },
  };
}

function readApiKey(provider: ProviderConfig): string {
  try {
    return readFileSync(provider.apiKeyFile, 'utf8').trim();
  } catch (error) {
    const reason = error instanceof Error && 'code' in error ? String(error.code) : 'unreadable';
    throw new Error(`llmGateway.providers: the apiKeyFile of provider ${provider.name} cannot be read (${reason})`);
  }
}

/** What a failure before the upstream's response headers means for the client: 504 when time ran out, else 502. */
export function upstreamFailure(error: unknown, timedOut: boolean): UpstreamFailure {
  if (timedOut || error instanceof errors.HeadersTimeoutError) return 'timeout';
  return 'unavailable';
}
