import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { testDatabaseTargets } from '../../src/core/db/database-testing.js';
import { ANTHROPIC_USAGE, GEMINI_USAGE, OPENAI_USAGE } from '../helpers/llm-upstreams.js';
import { rawCall, settledRecords, startGatewayFixture, UPSTREAM_KEY, type GatewayFixture } from './llm-gateway-testing.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const MERGED_ANTHROPIC_USAGE = { ...ANTHROPIC_USAGE.start, output_tokens: 250, server_tool_use: { web_search_requests: 2 } };

/*
 * Charges of the fake upstreams' default usage at the test catalog's rates (exact):
 * gpt-test, 1200 prompt tokens > the 1000-token tier: 1000 × 5 + 200 cached × 2.50 + 200 output × 20 + 100 reasoning × 12 = 10700 / 10^6
 * claude-test: 1000 × 3 + 400 × 0.30 + 100 × 3.75 (5 min) + 200 × 6 (1 h) + 250 × 15 = 8445 / 10^6, + 2 searches × 10 / 10^3
 * gemini-test: 1050 input × 1.25 + 700 cached × 0.31 + 200 audio × 2 + 100 cached audio × 0.5 + 500 × 10 + 150 thoughts × 12 = 8779.5 / 10^6
 */
const GPT_TEST_USD = '0.0107';
const CLAUDE_TEST_USD = '0.028445';
const GEMINI_TEST_USD = '0.0087795';

describe.each(testDatabaseTargets().map((target) => [target.name, target] as const))('LLM gateway through the providers\' SDKs (%s)', (_name, target) => {
  let fixture: GatewayFixture;
  let secret = '';
  let keyId = '';
  let aliceId = '';
  let groupId = '';

  const openai = () => new OpenAI({ apiKey: secret, baseURL: `${fixture.base}/llm/v1`, maxRetries: 0 });
  const anthropic = () => new Anthropic({ apiKey: secret, baseURL: `${fixture.base}/llm`, maxRetries: 0 });
  const gemini = () => new GoogleGenAI({ apiKey: secret, httpOptions: { baseUrl: `${fixture.base}/llm` } });
  let catalogId = '';
  const userCharge = (usd: string, model: string, provider: string, id: string) => ({ scope: 'user', subject_id: 'alice', auth_subject: 'alice', charged_usd: usd, model, provider, interaction_id: id, pricing_catalog_id: catalogId });

  beforeAll(async () => {
    fixture = await startGatewayFixture({ target });
    const created = await fixture.createKey(fixture.tokens.alice);
    secret = created.secret;
    keyId = created.key.id;
    aliceId = created.key.owner_ref;
    const group = await fixture.platform.call<{ id: string }>('POST', '/v1/groups', { token: fixture.tokens.admin, body: { name: 'research' } });
    groupId = group.body.id;
    expect((await fixture.platform.call('POST', `/v1/groups/${groupId}/users/${aliceId}`, { token: fixture.tokens.admin })).status).toBe(200);
    await fixture.platform.changes.check();
    catalogId = (await fixture.platform.call<{ id: string }>('GET', '/v1/budgets/pricing', { token: fixture.tokens.billing })).body.id;
  });
  afterAll(async () => fixture.close());
  beforeEach(() => fixture.upstream.reset());

  it('serves OpenAI chat completions, forwarding only what the provider reads, and charges the prompt-size tier', async () => {
    const { data, response } = await openai()
      .chat.completions.create({ model: 'gpt-test', messages: [{ role: 'user', content: 'hi' }] }, { headers: { 'x-interaction-id': 'conversation-7', 'x-secret-header': 'no' } })
      .withResponse();
    expect(data.choices[0]?.message.content).toBe('Hello from the');
    const id = response.headers.get('x-request-id') ?? '';
    expect(id).toMatch(UUID);

    const [upstream] = fixture.upstream.requests;
    expect(upstream?.path).toBe('/v1/chat/completions');
    expect(upstream?.headers.authorization).toBe(`Bearer ${UPSTREAM_KEY}`);
    expect(upstream?.headers['x-secret-header']).toBeUndefined();
    expect(upstream?.headers['x-interaction-id']).toBeUndefined();
    expect(upstream?.body).toEqual({ model: 'gpt-test', messages: [{ role: 'user', content: 'hi' }] });

    const { event, charges } = await settledRecords(fixture, id);
    const { duration_ms: duration, event_time: eventTime, ingest_time: ingestTime, ...rest } = event ?? {};
    expect(duration).toBeTypeOf('number');
    expect(Date.parse(String(ingestTime))).toBeGreaterThanOrEqual(Date.parse(String(eventTime)));
    expect(rest).toEqual({
      id,
      ai_policy: { decision: 'allowed', policies: [] },
      auth_issuer: fixture.provider.issuer,
      auth_subject: 'alice',
      interaction_id: 'conversation-7',
      model: 'gpt-test',
      outcome: 'delivered',
      platform_groups: [groupId],
      platform_user_id: aliceId,
      provider: 'openai',
      raw_usage: OPENAI_USAGE,
      requested_model: 'gpt-test',
      route: '/llm/v1/chat/completions',
      upstream_status: 200,
      virtual_key_id: keyId,
    });
    expect(charges).toEqual([userCharge(GPT_TEST_USD, 'gpt-test', 'openai', 'conversation-7')]);
  });

  it('streams OpenAI chat completions, asking the provider for usage and relaying the usage chunk only when the client asked', async () => {
    const plain = await openai().chat.completions.create({ model: 'gpt-test', messages: [{ role: 'user', content: 'hi' }], stream: true }).withResponse();
    const chunks = [];
    for await (const chunk of plain.data) chunks.push(chunk);
    expect(chunks.map((chunk) => chunk.choices[0]?.delta.content ?? '').join('')).toBe('Hello from the');
    expect(chunks.every((chunk) => !chunk.usage)).toBe(true);
    expect(fixture.upstream.requests[0]?.body.stream_options).toEqual({ include_usage: true });

    const asked = await openai().chat.completions.create({ model: 'gpt-test', messages: [{ role: 'user', content: 'hi' }], stream: true, stream_options: { include_usage: true } });
    let usage: unknown;
    for await (const chunk of asked) usage = chunk.usage ?? usage;
    expect(usage).toEqual(OPENAI_USAGE);

    const id = plain.response.headers.get('x-request-id') ?? '';
    const { event, charges } = await settledRecords(fixture, id);
    expect(event).toMatchObject({ outcome: 'delivered', raw_usage: OPENAI_USAGE, upstream_status: 200, interaction_id: id });
    expect(charges).toEqual([userCharge(GPT_TEST_USD, 'gpt-test', 'openai', id)]);
  });

  it('charges a web search on chat completions at the vendor tool rate', async () => {
    const { response } = await openai()
      .chat.completions.create({ model: 'gpt-test', messages: [{ role: 'user', content: 'news?' }], web_search_options: {} })
      .withResponse();
    const { charges } = await settledRecords(fixture, response.headers.get('x-request-id') ?? '');
    // 10700 / 10^6 + 1 search × 25 / 10^3
    expect(charges.map((charge) => charge.charged_usd)).toEqual(['0.0357']);
  });

  it('serves Anthropic messages, streaming and not, merging message_start with the last message_delta', async () => {
    const { data, response } = await anthropic().messages.create({ model: 'claude-test', max_tokens: 100, messages: [{ role: 'user', content: 'hi' }] }).withResponse();
    expect(data.content).toEqual([{ type: 'text', text: 'Hello from the' }]);
    const [upstream] = fixture.upstream.requests;
    expect(upstream?.path).toBe('/v1/messages');
    expect(upstream?.headers['x-api-key']).toBe(UPSTREAM_KEY);
    expect(upstream?.headers['anthropic-version']).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    const single = await settledRecords(fixture, response.headers.get('x-request-id') ?? '');
    expect(single.event).toMatchObject({ outcome: 'delivered', route: '/llm/v1/messages', model: 'claude-test', provider: 'anthropic', raw_usage: MERGED_ANTHROPIC_USAGE });
    expect(single.charges.map((charge) => charge.charged_usd)).toEqual([CLAUDE_TEST_USD]);

    const streamed = await anthropic().messages.create({ model: 'claude-test', max_tokens: 100, messages: [{ role: 'user', content: 'hi' }], stream: true }).withResponse();
    const types: string[] = [];
    for await (const event of streamed.data) types.push(event.type);
    expect(types).toEqual(['message_start', 'content_block_start', 'content_block_delta', 'content_block_delta', 'content_block_delta', 'content_block_stop', 'message_delta', 'message_stop']);
    const stream = await settledRecords(fixture, streamed.response.headers.get('x-request-id') ?? '');
    expect(stream.event).toMatchObject({ outcome: 'delivered', raw_usage: MERGED_ANTHROPIC_USAGE });
    expect(stream.charges.map((charge) => charge.charged_usd)).toEqual([CLAUDE_TEST_USD]);
  });

  it('forwards the client\'s anthropic-* headers, and the default API version when it sends none', async () => {
    const body = { model: 'claude-test', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] };
    expect((await rawCall(fixture, 'POST', '/llm/v1/messages', { body, headers: { 'x-api-key': secret } })).status).toBe(200);
    expect((await rawCall(fixture, 'POST', '/llm/v1/messages', { body, headers: { 'x-api-key': secret, 'anthropic-version': '2025-01-01', 'anthropic-beta': 'files-api' } })).status).toBe(200);
    expect(fixture.upstream.requests.map((request) => [request.headers['anthropic-version'], request.headers['anthropic-beta']])).toEqual([
      ['2023-06-01', undefined],
      ['2025-01-01', 'files-api'],
    ]);
  });

  it('serves Gemini generateContent and streamGenerateContent, charging grounding searches', async () => {
    const single = await gemini().models.generateContent({ model: 'gemini-test', contents: 'hi' });
    expect(single.text).toBe('Hello from the');
    const [upstream] = fixture.upstream.requests;
    expect(upstream?.path).toBe('/v1beta/models/gemini-test:generateContent');
    expect(upstream?.headers['x-goog-api-key']).toBe(UPSTREAM_KEY);
    const first = await settledRecords(fixture, single.sdkHttpResponse?.headers?.['x-request-id'] ?? '');
    expect(first.event).toMatchObject({ outcome: 'delivered', route: '/llm/v1beta/models/{model}:generateContent', raw_usage: GEMINI_USAGE });
    expect(first.charges.map((charge) => charge.charged_usd)).toEqual([GEMINI_TEST_USD]);

    fixture.upstream.setGeminiUsage(GEMINI_USAGE, ['toolyard release date']);
    let requestId = '';
    let text = '';
    for await (const chunk of await gemini().models.generateContentStream({ model: 'gemini-test', contents: 'hi', config: { tools: [{ googleSearch: {} }] } })) {
      requestId = chunk.sdkHttpResponse?.headers?.['x-request-id'] ?? requestId;
      text += chunk.text ?? '';
    }
    expect(text).toBe('Hello from the');
    expect(fixture.upstream.requests[1]?.path).toBe('/v1beta/models/gemini-test:streamGenerateContent');
    expect(fixture.upstream.requests[1]?.query).toEqual({ alt: 'sse' });
    const streamed = await settledRecords(fixture, requestId);
    expect(streamed.event).toMatchObject({ outcome: 'delivered', route: '/llm/v1beta/models/{model}:streamGenerateContent', raw_usage: GEMINI_USAGE });
    // 8779.5 / 10^6 + 1 grounded request × 35 / 10^3
    expect(streamed.charges.map((charge) => charge.charged_usd)).toEqual(['0.0437795']);
  });

  it('takes the Gemini key query parameter and never forwards it', async () => {
    const answer = await rawCall(fixture, 'POST', `/llm/v1beta/models/gemini-test:generateContent?key=${secret}`, { body: { contents: [{ parts: [{ text: 'hi' }] }] } });
    expect(answer.status).toBe(200);
    expect(fixture.upstream.requests[0]?.query).toEqual({});
    expect(JSON.stringify(fixture.upstream.requests[0]?.headers)).not.toContain(secret);
  });

  it('serves a Gemini model on chat completions through its OpenAI-compatible URL, priced in the OpenAI column', async () => {
    const { response } = await openai().chat.completions.create({ model: 'gemini-test', messages: [{ role: 'user', content: 'hi' }] }).withResponse();
    expect(fixture.upstream.requests[0]?.path).toBe('/v1beta/openai/chat/completions');
    expect(fixture.upstream.requests[0]?.headers.authorization).toBe(`Bearer ${UPSTREAM_KEY}`);
    const { event, charges } = await settledRecords(fixture, response.headers.get('x-request-id') ?? '');
    expect(event).toMatchObject({ model: 'gemini-test', provider: 'gemini', route: '/llm/v1/chat/completions', raw_usage: OPENAI_USAGE });
    // 1000 × 1.25 + 200 cached × 0.31 + 200 output × 10 + 100 reasoning at the thoughts rate × 12 = 4512 / 10^6
    expect(charges.map((charge) => charge.charged_usd)).toEqual(['0.004512']);
  });

  it('resolves a provider-qualified name through the aliases and sends the provider its own name', async () => {
    const answer = await rawCall(fixture, 'POST', '/llm/v1beta/models/google/gemini-test:generateContent', { body: { contents: [] }, headers: { 'x-goog-api-key': secret } });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(fixture.upstream.requests[0]?.path).toBe('/v1beta/models/gemini-test:generateContent');
    const { event } = await settledRecords(fixture, answer.headers.get('x-request-id') ?? '');
    expect(event).toMatchObject({ requested_model: 'google/gemini-test', model: 'gemini-test', provider: 'gemini' });
  });

  it('authenticates a token as its directory user: no key, the token\'s issuer and subject', async () => {
    const client = new OpenAI({ apiKey: fixture.tokens.alice, baseURL: `${fixture.base}/llm/v1`, maxRetries: 0 });
    const { response } = await client.chat.completions.create({ model: 'gpt-tiny', messages: [{ role: 'user', content: 'hi' }] }).withResponse();
    const { event, charges } = await settledRecords(fixture, response.headers.get('x-request-id') ?? '');
    expect(event).toMatchObject({ virtual_key_id: null, auth_subject: 'alice', auth_issuer: fixture.provider.issuer, platform_user_id: aliceId, platform_groups: [groupId] });
    // 1000 input × 0.10 + 200 cached at the input rate × 0.10 + 300 output (reasoning at the output rate) × 0.40 = 240 / 10^6
    expect(charges.map((charge) => charge.charged_usd)).toEqual(['0.00024']);
  });

  it('charges each budgeted group of the caller the full cost, besides the caller', async () => {
    const budget = await fixture.platform.call('PUT', `/v1/budgets/groups/${groupId}`, { token: fixture.tokens.billing, body: { month_limit_usd: '100' } });
    expect(budget.status, budget.text).toBe(200);
    const { response } = await anthropic().messages.create({ model: 'claude-test', max_tokens: 100, messages: [{ role: 'user', content: 'hi' }] }).withResponse();
    const id = response.headers.get('x-request-id') ?? '';
    const { charges } = await settledRecords(fixture, id);
    expect(charges).toEqual([
      userCharge(CLAUDE_TEST_USD, 'claude-test', 'anthropic', id),
      { ...userCharge(CLAUDE_TEST_USD, 'claude-test', 'anthropic', id), scope: 'group', subject_id: groupId },
    ]);
    expect((await fixture.platform.call('PUT', `/v1/budgets/groups/${groupId}`, { token: fixture.tokens.billing, body: {} })).status).toBe(200);
  });

  it('lists the priced models served on chat completions, sorted by id', async () => {
    const models = await openai().models.list();
    const effectiveFrom = (await fixture.platform.call<{ effective_from: string }>('GET', '/v1/budgets/pricing', { token: fixture.tokens.billing })).body.effective_from;
    const created = Math.floor(Date.parse(effectiveFrom) / 1000);
    expect(models.data).toEqual([
      { id: 'gemini-test', object: 'model', created, owned_by: 'gemini' },
      { id: 'gpt-dead', object: 'model', created, owned_by: 'openai-dead' },
      { id: 'gpt-test', object: 'model', created, owned_by: 'openai' },
      { id: 'gpt-tiny', object: 'model', created, owned_by: 'openai' },
    ]);
  });
});
