import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { testDatabaseTargets } from '../../src/core/db/database-testing.js';
import { TOPICS } from '../../src/platform/context.js';
import { insertIdentity, insertUser } from '../../src/platform/identity/store.js';
import { ANTHROPIC_USAGE } from '../helpers/llm-upstreams.js';
import { rawCall, settledRecords, startGatewayFixture, type GatewayFixture, type RawAnswer } from './llm-gateway-testing.js';

type Format = 'openai' | 'anthropic' | 'gemini';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const BODY_LIMIT = 65536;

const PATHS: Record<Format, (model: string) => string> = {
  openai: () => '/llm/v1/chat/completions',
  anthropic: () => '/llm/v1/messages',
  gemini: (model) => `/llm/v1beta/models/${model}:generateContent`,
};
const bodyFor = (format: Format, model: string, extra: Record<string, unknown> = {}) =>
  format === 'gemini' ? { contents: [{ role: 'user', parts: [{ text: 'hi' }] }], ...extra } : { model, messages: [{ role: 'user', content: 'hi' }], ...extra };
const credential = (format: Format, secret: string): Record<string, string> =>
  format === 'openai' ? { authorization: `Bearer ${secret}` } : format === 'anthropic' ? { 'x-api-key': secret } : { 'x-goog-api-key': secret };

/** The error of `answer` in its wire format: status, the format's type/status name, code, message. */
function errorOf(format: Format, answer: RawAnswer): { status: number; type: unknown; code: unknown; message: string } {
  const body = answer.body as Record<string, Record<string, unknown> | undefined>;
  if (format === 'openai') {
    expect(Object.keys(body.error ?? {}).sort()).toEqual(['code', 'message', 'param', 'type']);
    expect(body.error?.param).toBeNull();
    return { status: answer.status, type: body.error?.type, code: body.error?.code, message: String(body.error?.message) };
  }
  if (format === 'anthropic') {
    expect(body.type).toBe('error');
    expect(body.request_id).toBe(answer.headers.get('x-request-id'));
    return { status: answer.status, type: body.error?.type, code: String(body.error?.message).split(':')[0], message: String(body.error?.message) };
  }
  const details = body.error?.details as { '@type': string; reason: string; domain: string }[];
  expect(body.error?.code).toBe(answer.status);
  expect(details).toHaveLength(1);
  expect(details[0]?.['@type']).toBe('type.googleapis.com/google.rpc.ErrorInfo');
  expect(details[0]?.domain).toBe('toolyard');
  return { status: answer.status, type: body.error?.status, code: details[0]?.reason, message: String(body.error?.message) };
}

describe.each(testDatabaseTargets().map((target) => [target.name, target] as const))('LLM gateway admission and upstream failures (%s)', (_name, target) => {
  let fixture: GatewayFixture;
  let secret = '';
  let bobSecret = '';

  const call = (format: Format, model: string, options: { secret?: string; body?: string | object; headers?: Record<string, string>; query?: string } = {}) =>
    rawCall(fixture, 'POST', `${PATHS[format](model)}${options.query ?? ''}`, {
      body: options.body ?? bodyFor(format, model),
      headers: { ...(options.secret !== '' && credential(format, options.secret ?? secret)), ...options.headers },
    });
  const eventOf = async (answer: RawAnswer) => (await settledRecords(fixture, answer.headers.get('x-request-id') ?? '')).event;
  /** Sets (or with nulls, removes) a user's budget through the enterprise manager. */
  const setUserBudget = async (subject: string, day: string | null, month: string | null) => {
    const response = await fixture.platform.call('PUT', `/v1/budgets/users/${subject}`, { token: fixture.tokens.billing, body: { day_limit_usd: day, month_limit_usd: month } });
    expect(response.status, response.text).toBe(200);
  };
  /** A stream's settlement starts once the upstream has been read to its end: wait for it (bounded). */
  const awaitRecords = async (id: string) => {
    for (let attempt = 0; attempt < 100; attempt += 1) {
      const records = await settledRecords(fixture, id);
      if (records.event) return records;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`no usage event ${id}`);
  };

  beforeAll(async () => {
    fixture = await startGatewayFixture({ target, llmGateway: { maxBodyBytes: BODY_LIMIT } });
    secret = (await fixture.createKey(fixture.tokens.alice)).secret;
    bobSecret = (await fixture.createKey(fixture.tokens.bob)).secret;
  });
  afterAll(async () => fixture.close());
  beforeEach(() => fixture.upstream.reset());

  describe.each(['openai', 'anthropic', 'gemini'] as const)('in the %s wire format', (format) => {
    const model = format === 'openai' ? 'gpt-test' : format === 'anthropic' ? 'claude-test' : 'gemini-test';

    it('checks the body (400 / 413) before the credential, and writes no event', async () => {
      const notJson = await call(format, model, { body: '{"model": ', secret: '' });
      expect(errorOf(format, notJson)).toMatchObject({ status: 400, type: format === 'gemini' ? 'INVALID_ARGUMENT' : 'invalid_request_error', code: 'invalid_request' });
      expect(errorOf(format, notJson).message).toMatch(/^invalid_request: the body is not valid JSON/);
      expect(notJson.headers.get('x-request-id')).toMatch(UUID);
      expect(await eventOf(notJson)).toBeUndefined();

      const tooLarge = await call(format, model, { body: bodyFor(format, model, { padding: 'x'.repeat(BODY_LIMIT) }), secret: '' });
      expect(errorOf(format, tooLarge)).toMatchObject({ status: 413, code: 'request_too_large', message: `request_too_large: the request body is larger than the limit of ${String(BODY_LIMIT)} bytes` });

      const wrongType = await rawCall(fixture, 'POST', PATHS[format](model), { body: 'hello', headers: { 'content-type': 'text/plain' } });
      expect(errorOf(format, wrongType)).toMatchObject({ status: 400, code: 'invalid_request', message: 'invalid_request: content-type "text/plain" is not accepted: send the body as application/json' });

      const longInteraction = await call(format, model, { headers: { 'x-interaction-id': 'i'.repeat(129) } });
      expect(errorOf(format, longInteraction)).toMatchObject({ status: 400, code: 'invalid_request' });
      expect(errorOf(format, longInteraction).message).toContain('X-Interaction-Id');

      if (format !== 'gemini') {
        const noModel = await call(format, model, { body: { messages: [] } });
        expect(errorOf(format, noModel)).toMatchObject({ status: 400, code: 'invalid_request', message: 'invalid_request: model: is required, the name of the model to call (a string)' });
      }
    });

    it('refuses a missing or unknown credential (401 invalid_api_key), and writes no event', async () => {
      const none = await call(format, model, { secret: '' });
      expect(errorOf(format, none)).toMatchObject({ status: 401, type: { openai: 'invalid_request_error', anthropic: 'authentication_error', gemini: 'UNAUTHENTICATED' }[format], code: 'invalid_api_key' });
      const unknown = await call(format, model, { secret: `tyk_${'b'.repeat(43)}` });
      expect(errorOf(format, unknown)).toMatchObject({ status: 401, code: 'invalid_api_key' });
      expect(await eventOf(unknown)).toBeUndefined();
    });

    it('refuses an unpriced model (403 model_unpriceable) with a blocked_downstream event', async () => {
      const answer = await call(format, 'no-such-model');
      expect(errorOf(format, answer)).toMatchObject({
        status: 403,
        type: { openai: 'invalid_request_error', anthropic: 'permission_error', gemini: 'PERMISSION_DENIED' }[format],
        code: 'model_unpriceable',
        message: 'model_unpriceable: the model "no-such-model" has no price in the pricing catalog in effect',
      });
      expect(await eventOf(answer)).toMatchObject({ outcome: 'blocked_downstream', upstream_status: 0, requested_model: 'no-such-model', model: 'no-such-model', provider: '', raw_usage: null, auth_subject: 'alice' });
      expect(fixture.upstream.requests).toEqual([]);
    });

    it('refuses a model its provider does not serve on this route (404 model_not_found)', async () => {
      const elsewhere = format === 'anthropic' ? 'gpt-test' : 'claude-test';
      const answer = await call(format, elsewhere);
      expect(errorOf(format, answer)).toMatchObject({ status: 404, type: { openai: 'invalid_request_error', anthropic: 'not_found_error', gemini: 'NOT_FOUND' }[format], code: 'model_not_found' });
      expect(errorOf(format, answer).message).toContain(elsewhere);
      const { event, charges } = await settledRecords(fixture, answer.headers.get('x-request-id') ?? '');
      expect(event).toMatchObject({ outcome: 'blocked_downstream', model: elsewhere, provider: format === 'anthropic' ? 'openai' : 'anthropic' });
      expect(charges).toEqual([]);
    });

    it('refuses a request a budget cannot reserve (402 budget_exhausted) once the budget is used up to its limit', async () => {
      await setUserBudget('bob', null, null);
      const first = await call(format, model, { secret: bobSecret });
      expect(first.status).toBe(200);
      const used = (await settledRecords(fixture, first.headers.get('x-request-id') ?? '')).charges[0]?.charged_usd ?? '';
      // the month's limit is what bob has spent: no room is left for another request
      await setUserBudget('bob', null, used);
      const refused = await call(format, model, { secret: bobSecret });
      expect(errorOf(format, refused)).toMatchObject({ status: 402, type: { openai: 'insufficient_quota', anthropic: 'billing_error', gemini: 'RESOURCE_EXHAUSTED' }[format], code: 'budget_exhausted' });
      expect(errorOf(format, refused).message).toMatch(/^budget_exhausted: .*bob/);
      expect(await eventOf(refused)).toMatchObject({ outcome: 'blocked_downstream', auth_subject: 'bob', upstream_status: 0, model, raw_usage: null });
      await setUserBudget('bob', null, null);
    });

    it('relays an upstream error unchanged and charges nothing', async () => {
      fixture.upstream.fail({ kind: 'status', status: 503 });
      const answer = await call(format, model);
      expect(answer.status).toBe(503);
      expect(JSON.stringify(answer.body)).toContain('fake upstream failure 503');
      const { event, charges } = await settledRecords(fixture, answer.headers.get('x-request-id') ?? '');
      expect(event).toMatchObject({ outcome: 'upstream_error', upstream_status: 503, raw_usage: null });
      expect(charges).toEqual([]);
    });

    it('answers 502 upstream_unavailable, charging nothing, when the upstream answers with a status HTTP does not define', async () => {
      fixture.upstream.fail({ kind: 'status', status: 799 });
      const answer = await call(format, model);
      const error = errorOf(format, answer);
      expect(error).toMatchObject({ status: 502, code: 'upstream_unavailable' });
      expect(error.message).toContain('status 799');
      const { event, charges } = await settledRecords(fixture, answer.headers.get('x-request-id') ?? '');
      expect(event).toMatchObject({ outcome: 'upstream_error', upstream_status: 799, raw_usage: null });
      expect(charges).toEqual([]);
    });

    it('answers 504 upstream_timeout when the upstream sends no headers in time', async () => {
      fixture.upstream.fail({ kind: 'hang' });
      const answer = await call(format, model);
      expect(errorOf(format, answer)).toMatchObject({ status: 504, type: { openai: 'api_error', anthropic: 'timeout_error', gemini: 'DEADLINE_EXCEEDED' }[format], code: 'upstream_timeout' });
      const { event, charges } = await settledRecords(fixture, answer.headers.get('x-request-id') ?? '');
      expect(event).toMatchObject({ outcome: 'upstream_error', upstream_status: 0 });
      expect(charges).toEqual([]);
    });
  });

  it('answers 502 upstream_unavailable when the upstream cannot be reached', async () => {
    const answer = await call('openai', 'gpt-dead');
    expect(errorOf('openai', answer)).toMatchObject({ status: 502, type: 'api_error', code: 'upstream_unavailable' });
    expect(await eventOf(answer)).toMatchObject({ outcome: 'upstream_error', upstream_status: 0, provider: 'openai-dead' });
  });

  it('refuses streamGenerateContent without alt=sse', async () => {
    const answer = await call('gemini', 'gemini-test', { body: bodyFor('gemini', 'gemini-test') });
    expect(answer.status).toBe(200);
    const stream = await rawCall(fixture, 'POST', '/llm/v1beta/models/gemini-test:streamGenerateContent', { body: bodyFor('gemini', 'gemini-test'), headers: credential('gemini', secret) });
    expect(errorOf('gemini', stream)).toMatchObject({ status: 400, code: 'invalid_request' });
    expect(errorOf('gemini', stream).message).toContain('alt=sse');
  });

  it('lets the SDKs read refusals: no retry of a 402, the code and message as sent', async () => {
    await setUserBudget('bob', '0.000001', null);
    const client = new OpenAI({ apiKey: bobSecret, baseURL: `${fixture.base}/llm/v1` });
    const refused = await client.chat.completions.create({ model: 'gpt-tiny', messages: [{ role: 'user', content: 'hi' }] }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(OpenAI.APIError);
    expect(refused).toMatchObject({ status: 402, code: 'budget_exhausted', type: 'insufficient_quota' });
    const anthropic = new Anthropic({ apiKey: bobSecret, baseURL: `${fixture.base}/llm` });
    const denied = await anthropic.messages.create({ model: 'claude-test', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] }).catch((error: unknown) => error);
    expect(denied).toBeInstanceOf(Anthropic.APIError);
    expect(denied).toMatchObject({ status: 402 });
    await setUserBudget('bob', null, null);
  });

  it('refuses an inactive directory user (401 user_inactive) until reactivated', async () => {
    const { db, changes } = fixture.context;
    const setActive = async (active: boolean) => {
      await db.transaction().execute(async (trx) => {
        await trx.updateTable('users').set({ active }).where('user_name', '=', 'bob').execute();
        await changes.publish(trx as never, TOPICS.users);
      });
      await changes.check();
    };
    await setActive(false);
    const asBob = { secret: '', headers: { authorization: `Bearer ${fixture.tokens.bob}` } };
    const answer = await call('anthropic', 'claude-test', asBob);
    expect(errorOf('anthropic', answer)).toMatchObject({ status: 401, type: 'authentication_error', code: 'user_inactive' });
    await setActive(true);
    expect((await call('anthropic', 'claude-test', asBob)).status).toBe(200);
  });

  it('charges in full a stream the client left, reading the upstream to its end', async () => {
    fixture.upstream.setStreamPacing({ chunks: 12, chunkDelayMs: 20 });
    const abort = new AbortController();
    const response = await fetch(`${fixture.base}/llm/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${secret}` },
      body: JSON.stringify(bodyFor('openai', 'gpt-test', { stream: true })),
      signal: abort.signal,
    });
    const id = response.headers.get('x-request-id') ?? '';
    const reader = response.body?.getReader();
    await reader?.read();
    abort.abort();
    const { event, charges } = await awaitRecords(id);
    expect(event).toMatchObject({ outcome: 'client_disconnect', upstream_status: 200 });
    expect(charges.map((charge) => charge.charged_usd)).toEqual(['0.0107']);
  });

  it('relays a long stream whole, byte for byte, to a client that reads it slowly, and charges it once', async () => {
    // megabytes of events: more than the sockets hold, so the relay must wait for the client
    fixture.upstream.setStreamPacing({ chunks: 30_000 });
    const body = JSON.stringify(bodyFor('openai', 'gpt-test', { stream: true, stream_options: { include_usage: true } }));
    const direct = await fetch(`${fixture.upstream.url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body }).then((answer) => answer.text());
    const response = await fetch(`${fixture.base}/llm/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${secret}` }, body });
    const reader = (response.body as ReadableStream<Uint8Array> | null)?.getReader();
    if (!reader) throw new Error('no body');
    const parts: Uint8Array[] = [];
    for (let read = await reader.read(); !read.done; read = await reader.read()) {
      parts.push(read.value);
      if (parts.length % 50 === 1) await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const relayed = Buffer.concat(parts).toString('utf8');
    expect(relayed.length).toBeGreaterThan(3_000_000);
    expect(relayed).toBe(direct);
    const { event, charges } = await awaitRecords(response.headers.get('x-request-id') ?? '');
    expect(event).toMatchObject({ outcome: 'delivered', upstream_status: 200 });
    expect(charges.map((charge) => charge.charged_usd)).toEqual(['0.0107']);
  });

  it('cuts the client\'s stream when the upstream stalls past the time-out, charging the usage seen', async () => {
    fixture.upstream.setStreamPacing({ chunks: 3, chunkDelayMs: 1_500 });
    const response = await fetch(`${fixture.base}/llm/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...credential('anthropic', secret) },
      body: JSON.stringify(bodyFor('anthropic', 'claude-test', { stream: true, max_tokens: 10 })),
    });
    expect(response.status).toBe(200);
    await expect(response.text()).rejects.toThrow();
    const { event, charges } = await awaitRecords(response.headers.get('x-request-id') ?? '');
    expect(event).toMatchObject({ outcome: 'upstream_error', upstream_status: 200, raw_usage: { ...ANTHROPIC_USAGE.start } });
    expect(charges.map((charge) => charge.charged_usd)).toEqual(['0.00471']);
  });

  it('charges the last usage seen when the upstream cuts a stream, and nothing when it saw none', async () => {
    fixture.upstream.fail({ kind: 'cut' }, 2);
    const cutShort = async (format: Format, model: string, extra: Record<string, unknown>) => {
      const response = await fetch(`${fixture.base}${PATHS[format](model)}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...credential(format, secret) },
        body: JSON.stringify(bodyFor(format, model, { stream: true, ...extra })),
      });
      expect(response.status).toBe(200);
      await expect(response.text()).rejects.toThrow();
      return awaitRecords(response.headers.get('x-request-id') ?? '');
    };
    const anthropic = await cutShort('anthropic', 'claude-test', { max_tokens: 10 });
    expect(anthropic.event).toMatchObject({ outcome: 'upstream_error', upstream_status: 200, raw_usage: { ...ANTHROPIC_USAGE.start } });
    // message_start's usage: 1000 × 3 + 400 × 0.30 + 100 × 3.75 + 200 × 6 + 1 output × 15 = 4710 / 10^6
    expect(anthropic.charges.map((charge) => charge.charged_usd)).toEqual(['0.00471']);
    const openai = await cutShort('openai', 'gpt-test', {});
    expect(openai.event).toMatchObject({ outcome: 'upstream_error', upstream_status: 200, raw_usage: null });
    expect(openai.charges).toEqual([]);

    fixture.upstream.fail({ kind: 'cut' }, 1);
    const whole = await call('gemini', 'gemini-test');
    expect(errorOf('gemini', whole)).toMatchObject({ status: 502, type: 'UNAVAILABLE', code: 'upstream_unavailable' });
    const { event, charges } = await settledRecords(fixture, whole.headers.get('x-request-id') ?? '');
    expect(event).toMatchObject({ outcome: 'upstream_error', upstream_status: 200, raw_usage: null });
    expect(charges).toEqual([]);
  });

  it('names each response by its event: X-Request-Id is never the client\'s, and X-Interaction-Id is kept', async () => {
    const refused = await call('openai', 'no-such-model', { headers: { 'x-request-id': 'client-chosen' } });
    expect(refused.headers.get('x-request-id')).toMatch(UUID);
    const served = await call('openai', 'gpt-tiny', { headers: { 'x-request-id': 'client-chosen', 'x-interaction-id': 'thread-42' } });
    const id = served.headers.get('x-request-id') ?? '';
    expect(id).toMatch(UUID);
    const { event, charges } = await settledRecords(fixture, id);
    expect(event).toMatchObject({ id, interaction_id: 'thread-42' });
    expect(charges.map((charge) => charge.interaction_id)).toEqual(['thread-42']);
  });
});

describe.each(testDatabaseTargets().map((target) => [target.name, target] as const))('LLM gateway identity and required budgets (%s)', (_name, target) => {
  let fixture: GatewayFixture;
  const eventOf = async (answer: RawAnswer) => (await settledRecords(fixture, answer.headers.get('x-request-id') ?? '')).event;
  beforeAll(async () => {
    fixture = await startGatewayFixture({ target, config: { directory: { jitProvisioning: false }, budgets: { enforcement: 'hard', requireBudget: true } } });
    const now = new Date();
    const id = '00000000-0000-4000-8000-00000000a11c';
    await insertUser(fixture.context.db, { id, user_name: 'alice', display_name: 'Alice', email: null, photo_url: null, active: true, source: 'local', created_at: now, updated_at: now });
    await insertIdentity(fixture.context.db, fixture.provider.issuer, 'alice', id);
  });
  afterAll(async () => fixture.close());

  it('refuses a token without a directory user (401 no_directory_user), writing no event', async () => {
    const answer = await rawCall(fixture, 'POST', '/llm/v1/messages', { body: bodyFor('anthropic', 'claude-test'), headers: { authorization: `Bearer ${fixture.tokens.bob}` } });
    expect(errorOf('anthropic', answer)).toMatchObject({ status: 401, type: 'authentication_error', code: 'no_directory_user' });
    expect(await eventOf(answer)).toBeUndefined();
  });

  it('refuses a caller no budget applies to (403 no_budget) when budgets are required', async () => {
    for (const format of ['openai', 'anthropic', 'gemini'] as const) {
      const model = format === 'openai' ? 'gpt-tiny' : format === 'anthropic' ? 'claude-test' : 'gemini-test';
      const answer = await rawCall(fixture, 'POST', PATHS[format](model), { body: bodyFor(format, model), headers: { authorization: `Bearer ${fixture.tokens.alice}` } });
      expect(errorOf(format, answer)).toMatchObject({ status: 403, code: 'no_budget' });
      expect(errorOf(format, answer).message).toMatch(/^no_budget: .*alice/);
      expect(await eventOf(answer)).toMatchObject({ outcome: 'blocked_downstream', auth_subject: 'alice' });
    }
    const budget = await fixture.platform.call('PUT', '/v1/budgets/users/alice', { token: fixture.tokens.billing, body: { day_limit_usd: '5' } });
    expect(budget.status, budget.text).toBe(200);
    const admitted = await rawCall(fixture, 'POST', '/llm/v1/chat/completions', { body: bodyFor('openai', 'gpt-tiny'), headers: { authorization: `Bearer ${fixture.tokens.alice}` } });
    expect(admitted.status).toBe(200);
  });
});
