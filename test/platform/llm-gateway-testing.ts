import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TestDatabaseTarget } from '../../src/core/db/database-testing.js';
import type { PlatformContext } from '../../src/platform/context.js';
import type { Key } from '../../src/platform/keys/schemas.js';
import { formatMoney } from '../../src/platform/money.js';
import type { Spec } from '../../src/platform/pricing/schemas.js';
import { startFakeUpstream, type FakeUpstream } from '../helpers/llm-upstreams.js';
import { nowSeconds, type OidcProvider } from '../helpers/oidc-provider.js';
import { createTestPlatform, oauthWith, startTestProvider, tempFile, type TestPlatform } from './helpers.js';

/** The upstream API key the fake providers expect (read from a file, as in production). */
export const UPSTREAM_KEY = 'sk-upstream-secret';

/**
 * The catalog of the gateway tests: one model per vendor with every rate kind, a prompt-size tier on
 * the OpenAI one, a web search / grounding rate per vendor.
 */
export const TEST_SPEC: Spec = {
  entries: [
    {
      provider: 'anthropic',
      model: 'claude-test',
      vendor_a: { inputUsdPerMillion: '3', outputUsdPerMillion: '15', cachedInputUsdPerMillion: '0.30', cacheCreation5mInputUsdPerMillion: '3.75', cacheCreation1hInputUsdPerMillion: '6' },
    },
    {
      provider: 'gemini',
      model: 'gemini-test',
      vendor_c: {
        inputUsdPerMillion: '1.25',
        outputUsdPerMillion: '10',
        cachedInputUsdPerMillion: '0.31',
        audioInputUsdPerMillion: '2',
        cachedAudioInputUsdPerMillion: '0.5',
        thoughtsOutputUsdPerMillion: '12',
      },
    },
    {
      provider: 'openai',
      model: 'gpt-test',
      vendor_b: {
        inputUsdPerMillion: '2.50',
        outputUsdPerMillion: '10',
        cachedInputUsdPerMillion: '1.25',
        reasoningOutputUsdPerMillion: '12',
        audioInputUsdPerMillion: '40',
        audioOutputUsdPerMillion: '80',
        promptSizeTiers: [{ aboveTokens: 1000, inputUsdPerMillion: '5', outputUsdPerMillion: '20', cachedInputUsdPerMillion: '2.50' }],
      },
    },
    { provider: 'openai', model: 'gpt-tiny', vendor_b: { inputUsdPerMillion: '0.10', outputUsdPerMillion: '0.40' } },
    // served by an upstream nothing listens on
    { provider: 'openai-dead', model: 'gpt-dead', vendor_b: { inputUsdPerMillion: '1', outputUsdPerMillion: '1' } },
  ],
  tools: { vendor_a: { webSearchUsdPerThousand: '10' }, vendor_b: { webSearchUsdPerThousand: '25' }, vendor_c: { groundingSearchUsdPerThousand: '35' } },
};

/** A local port nothing listens on (it was free a moment ago). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export interface GatewayFixture {
  platform: TestPlatform;
  context: PlatformContext;
  upstream: FakeUpstream;
  provider: OidcProvider;
  /** The gateway's base URL, e.g. http://127.0.0.1:1234 */
  base: string;
  tokens: { billing: string; alice: string; bob: string; admin: string };
  /** Creates a virtual key for `token`'s user and returns its record and secret. */
  createKey(token: string): Promise<{ key: Key; secret: string }>;
  /** Waits until every answered request is settled. */
  settled(): Promise<void>;
  close(): Promise<void>;
}

export async function startGatewayFixture(options: { target: TestDatabaseTarget; config?: Record<string, unknown>; llmGateway?: Record<string, unknown> }): Promise<GatewayFixture> {
  const upstream = await startFakeUpstream();
  const keyFile = await tempFile('upstream.key', `${UPSTREAM_KEY}\n`);
  const provider = await startTestProvider();
  const deadPort = await closedPort();
  let context: PlatformContext | undefined;
  const platform = await createTestPlatform({
    target: options.target,
    config: {
      auth: oauthWith(provider),
      pricing: { baseline: false },
      llmGateway: {
        providers: [
          { name: 'openai', wireFormat: 'openai', baseUrl: `${upstream.url}/v1`, apiKeyFile: keyFile },
          { name: 'anthropic', wireFormat: 'anthropic', baseUrl: upstream.url, apiKeyFile: keyFile },
          { name: 'gemini', wireFormat: 'gemini', baseUrl: upstream.url, apiKeyFile: keyFile, openaiBaseUrl: `${upstream.url}/v1beta/openai` },
          { name: 'openai-dead', wireFormat: 'openai', baseUrl: `http://127.0.0.1:${String(deadPort)}/v1`, apiKeyFile: keyFile },
        ],
        connectTimeout: '1s',
        upstreamTimeout: '2s',
        ...options.llmGateway,
      },
      ...options.config,
    },
    extraRoutes: (platformContext) => {
      context = platformContext;
    },
  });
  if (!context) throw new Error('no platform context');
  await platform.http.listen({ port: 0, host: '127.0.0.1' });
  const { port } = platform.http.server.address() as AddressInfo;
  const exp = nowSeconds() + 24 * 3600;
  const tokens = {
    billing: await provider.mint({ sub: 'bill', claims: { roles: ['billingAdmin'] }, exp }),
    alice: await provider.mint({ sub: 'alice', claims: { preferred_username: 'alice' }, exp }),
    bob: await provider.mint({ sub: 'bob', claims: { preferred_username: 'bob' }, exp }),
    admin: await provider.mint({ sub: 'root', claims: { roles: ['admin'] }, exp }),
  };
  const published = await platform.call('PUT', '/v1/budgets/pricing', { token: tokens.billing, body: { provider_aliases: { google: 'gemini' }, spec: TEST_SPEC } });
  if (published.status !== 200) throw new Error(`cannot publish the test catalog: ${published.text}`);
  return {
    platform,
    context,
    upstream,
    provider,
    base: `http://127.0.0.1:${String(port)}`,
    tokens,
    async createKey(token) {
      const response = await platform.call<{ key: Key; secret: string }>('POST', '/v1/me/keys', { token, body: { name: 'gateway test' } });
      if (response.status !== 201) throw new Error(`cannot create a key: ${response.text}`);
      return response.body;
    },
    settled: () => platform.features.llmGateway.idle(),
    async close() {
      await platform.dispose();
      await upstream.close();
      await provider.close();
    },
  };
}

export interface StoredCharge {
  scope: string;
  subject_id: string;
  auth_subject: string;
  charged_usd: string;
  model: string;
  provider: string;
  interaction_id: string;
  pricing_catalog_id: string;
}

/** The usage event `id` as stored, with its charges (amounts rendered as the contract renders money). */
export async function settledRecords(fixture: GatewayFixture, id: string): Promise<{ event: Record<string, unknown> | undefined; charges: StoredCharge[] }> {
  await fixture.settled();
  const { db } = fixture.context;
  const row = await db.selectFrom('usage_events').selectAll().where('id', '=', id).executeTakeFirst();
  const charges = await db.selectFrom('charges').selectAll().where('event_id', '=', id).orderBy('scope', 'desc').orderBy('subject_id').execute();
  return {
    event: row && { ...row, event_time: row.event_time.toISOString(), ingest_time: row.ingest_time.toISOString() },
    charges: charges.map((charge) => ({
      scope: charge.scope,
      subject_id: charge.subject_id,
      auth_subject: charge.auth_subject,
      charged_usd: formatMoney(charge.charged_usd),
      model: charge.model,
      provider: charge.provider,
      interaction_id: charge.interaction_id,
      pricing_catalog_id: charge.pricing_catalog_id,
    })),
  };
}

export interface RawAnswer {
  status: number;
  headers: Headers;
  body: Record<string, unknown>;
}

/** A plain HTTP call to the gateway (for what an SDK hides: exact error bodies, headers). */
export async function rawCall(fixture: GatewayFixture, method: string, path: string, options: { body?: string | object; headers?: Record<string, string> } = {}): Promise<RawAnswer> {
  const body = options.body === undefined ? undefined : typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
  const response = await fetch(`${fixture.base}${path}`, {
    method,
    headers: { ...(body !== undefined && { 'content-type': 'application/json' }), ...options.headers },
    ...(body !== undefined && { body }),
  });
  const text = await response.text();
  let parsed: Record<string, unknown> = {};
  try {
    parsed = JSON.parse(text) as Record<string, unknown>;
  } catch {
    parsed = { text };
  }
  return { status: response.status, headers: response.headers, body: parsed };
}
