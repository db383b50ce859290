import { describe, expect, it } from 'vitest';
import type { JsonRpcMessage } from './jsonrpc.js';
import { createMcpMiddleware, type InboundResult, type MiddlewarePolicy } from './middleware.js';

const none: MiddlewarePolicy = { toolsFilter: [], toolsOverride: {}, rateLimit: null };

const call = (name: string, id: number | string = 1): JsonRpcMessage => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name, arguments: { message: 'hi' } },
});

const toolsAnswer: JsonRpcMessage = {
  jsonrpc: '2.0',
  id: 4,
  result: {
    nextCursor: 'c',
    tools: [
      { name: 'echo', description: 'Echoes', inputSchema: { type: 'object' } },
      { name: 'get-sum', description: 'Adds', inputSchema: { type: 'object' } },
      { name: 'get-env', description: 'Env', inputSchema: { type: 'object' } },
    ],
  },
};

const refusalOf = (result: InboundResult) => (result.ok ? undefined : result);

function fakeClock(start = 1_000_000) {
  let now = start;
  return { clock: () => now, advance: (ms: number) => (now += ms) };
}

describe('tools override and filter', () => {
  const policy: MiddlewarePolicy = {
    ...none,
    toolsFilter: ['say', 'get-sum'],
    toolsOverride: { echo: { name: 'say', description: 'Says it back' }, 'get-sum': { description: 'Adds two numbers' } },
  };
  const mw = createMcpMiddleware(policy);

  it('shows renamed and re-described tools and hides tools outside the allow-list', () => {
    expect(mw.rewrites('tools/list')).toBe(true);
    expect(mw.rewrites('tools/call')).toBe(false);
    const out = mw.outbound('tools/list', toolsAnswer);
    expect(out).toEqual({
      jsonrpc: '2.0',
      id: 4,
      result: {
        nextCursor: 'c',
        tools: [
          { name: 'say', description: 'Says it back', inputSchema: { type: 'object' } },
          { name: 'get-sum', description: 'Adds two numbers', inputSchema: { type: 'object' } },
        ],
      },
    });
  });

  it('sends a call of the new name upstream under the original name', () => {
    const result = mw.inbound(call('say', 'a'), 'u');
    expect(result).toEqual({ ok: true, message: { ...call('echo', 'a') } });
    expect(mw.inbound(call('get-sum'), 'u')).toEqual({ ok: true, message: call('get-sum') });
  });

  it('refuses the original name of a renamed tool and filtered tools as unavailable, with HTTP 200', () => {
    for (const name of ['echo', 'get-env']) {
      expect(mw.inbound(call(name, 9), 'u')).toEqual({
        ok: false,
        status: 200,
        headers: {},
        body: { jsonrpc: '2.0', id: 9, error: { code: -32602, message: `tool ${name} is not available` } },
      });
    }
  });

  it('refuses the original name of a renamed tool even without an allow-list', () => {
    const renameOnly = createMcpMiddleware({ ...none, toolsOverride: { echo: { name: 'say' } } });
    expect(renameOnly.inbound(call('echo'), 'u').ok).toBe(false);
    expect(renameOnly.inbound(call('get-env'), 'u').ok).toBe(true);
    const tools = (renameOnly.outbound('tools/list', toolsAnswer).result as { tools: { name: string; description: string }[] }).tools;
    expect(tools.map((t) => [t.name, t.description])).toEqual([
      ['say', 'Echoes'],
      ['get-sum', 'Adds'],
      ['get-env', 'Env'],
    ]);
  });

  it('passes everything through untouched without a policy', () => {
    const plain = createMcpMiddleware(none);
    expect(plain.rewrites('tools/list')).toBe(false);
    expect(plain.outbound('tools/list', toolsAnswer)).toBe(toolsAnswer);
    const message = call('echo');
    const result = plain.inbound(message, 'u');
    expect(result.ok && result.message).toBe(message);
    const list: JsonRpcMessage = { jsonrpc: '2.0', id: 2, method: 'tools/list' };
    expect(mw.inbound(list, 'u')).toEqual({ ok: true, message: list });
  });

  it('leaves error answers to tools/list alone', () => {
    const error: JsonRpcMessage = { jsonrpc: '2.0', id: 1, error: { code: -32603, message: 'boom' } };
    expect(mw.outbound('tools/list', error)).toBe(error);
  });
});

describe('rate limits', () => {
  it('refuses with 429, Retry-After and -32000 once a per-user tool bucket is empty, per user', () => {
    const { clock, advance } = fakeClock();
    const mw = createMcpMiddleware(
      { ...none, rateLimit: { tools: [{ name: 'echo', perUser: { maxTokens: 2, refillPeriod: '1m' } }] } },
      clock,
    );
    expect(mw.inbound(call('echo'), 'alice').ok).toBe(true);
    expect(mw.inbound(call('echo'), 'alice').ok).toBe(true);
    expect(mw.inbound(call('echo', 7), 'alice')).toEqual({
      ok: false,
      status: 429,
      headers: { 'retry-after': '30' },
      body: { jsonrpc: '2.0', id: 7, error: { code: -32000, message: 'rate limit exceeded: per-user limit for tool echo' } },
    });
    expect(mw.inbound(call('echo'), 'bob').ok).toBe(true);
    expect(mw.inbound(call('get-sum'), 'alice').ok).toBe(true);
    // The bucket refills continuously: one token every 30 s.
    advance(29_000);
    const early = mw.inbound(call('echo'), 'alice');
    expect(refusalOf(early)?.headers['retry-after']).toBe('1');
    advance(1_000);
    expect(mw.inbound(call('echo'), 'alice').ok).toBe(true);
  });

  it('applies the shared limit across users and names it', () => {
    const { clock } = fakeClock();
    const mw = createMcpMiddleware({ ...none, rateLimit: { shared: { maxTokens: 1, refillPeriod: '10s' } } }, clock);
    expect(mw.inbound(call('echo'), 'alice').ok).toBe(true);
    const refused = mw.inbound(call('get-sum'), 'bob');
    expect(refused).toMatchObject({ ok: false, status: 429, headers: { 'retry-after': '10' } });
    expect(refusalOf(refused)?.body.error?.message).toBe('rate limit exceeded: shared limit');
  });

  it('only counts tools/call and takes no token when another limit refuses', () => {
    const { clock } = fakeClock();
    const mw = createMcpMiddleware(
      {
        ...none,
        rateLimit: {
          perUser: { maxTokens: 5, refillPeriod: '1h' },
          tools: [{ name: 'echo', shared: { maxTokens: 1, refillPeriod: '1h' } }],
        },
      },
      clock,
    );
    for (let i = 0; i < 10; i++) expect(mw.inbound({ jsonrpc: '2.0', id: i, method: 'tools/list' }, 'alice').ok).toBe(true);
    expect(mw.inbound(call('echo'), 'alice').ok).toBe(true);
    for (let i = 0; i < 3; i++) {
      const refused = mw.inbound(call('echo'), 'alice');
      expect(refusalOf(refused)?.body.error?.message).toBe('rate limit exceeded: shared limit for tool echo');
    }
    // The refused echo calls did not spend alice's per-user tokens: four are left.
    for (let i = 0; i < 4; i++) expect(mw.inbound(call('get-sum'), 'alice').ok).toBe(true);
    const refused = mw.inbound(call('get-sum'), 'alice');
    expect(refusalOf(refused)?.body.error?.message).toBe('rate limit exceeded: per-user limit');
  });

  it('does not spend tokens on calls to tools that are not available', () => {
    const { clock } = fakeClock();
    const mw = createMcpMiddleware(
      { toolsFilter: ['echo'], toolsOverride: {}, rateLimit: { shared: { maxTokens: 1, refillPeriod: '1m' } } },
      clock,
    );
    expect(mw.inbound(call('get-env'), 'alice')).toMatchObject({ ok: false, status: 200 });
    expect(mw.inbound(call('echo'), 'alice').ok).toBe(true);
  });

  it('rejects a refill period that is not a duration', () => {
    expect(() => createMcpMiddleware({ ...none, rateLimit: { shared: { maxTokens: 1, refillPeriod: 'soon' } } })).toThrow(
      /refillPeriod/,
    );
  });
});
