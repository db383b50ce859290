import { describe, expect, it } from 'vitest';
import type { JsonRpcMessage } from './jsonrpc.js';
import { SessionRouter, type ReplySink, type RouterSession } from './session-router.js';

function setup(timeouts: { readTimeoutMs?: number; sessionTtlMs?: number } = {}) {
  const upstream: JsonRpcMessage[] = [];
  let now = 0;
  const router = new SessionRouter({ send: (m) => upstream.push(m), clock: () => now, ...timeouts });
  const advance = (ms: number): void => {
    now += ms;
    router.sweep();
  };
  const session = (id: string): RouterSession & { got: JsonRpcMessage[] } => {
    const got: JsonRpcMessage[] = [];
    const s = { id, got, stream: (m: JsonRpcMessage) => got.push(m) };
    router.addSession(s);
    return s;
  };
  const sink = (): ReplySink & { notes: JsonRpcMessage[]; answers: JsonRpcMessage[] } => {
    const notes: JsonRpcMessage[] = [];
    const answers: JsonRpcMessage[] = [];
    return {
      notes,
      answers,
      notify: (m) => {
        notes.push(m);
        return true;
      },
      answer: (m) => answers.push(m),
    };
  };
  return { upstream, router, session, sink, advance };
}

describe('SessionRouter', () => {
  it('forwards initialize once and serves the cached result to later sessions', async () => {
    const { upstream, router } = setup();
    const first = router.initialize({ jsonrpc: '2.0', id: 'a', method: 'initialize', params: {} });
    const second = router.initialize({ jsonrpc: '2.0', id: 9, method: 'initialize', params: {} });
    expect(upstream).toHaveLength(1);
    router.serverMessage({ jsonrpc: '2.0', id: upstream[0]?.id ?? null, result: { serverInfo: { name: 's' } } });
    expect(await first).toMatchObject({ id: 'a', result: { serverInfo: { name: 's' } } });
    expect(await second).toMatchObject({ id: 9, result: { serverInfo: { name: 's' } } });
    expect(upstream.map((m) => m.method)).toEqual(['initialize', 'notifications/initialized']);
  });

  it('rewrites colliding request ids and progress tokens per session and restores them', () => {
    const { upstream, router, session, sink } = setup();
    const a = session('a');
    const b = session('b');
    const sa = sink();
    const sb = sink();
    const call = { jsonrpc: '2.0' as const, id: 1, method: 'tools/call', params: { name: 't', _meta: { progressToken: 1 } } };
    router.request(a, call, sa);
    router.request(b, call, sb);
    const [ua, ub] = upstream;
    expect(ua?.id).not.toBe(ub?.id);
    const tokenB = (ub?.params?._meta as { progressToken: string }).progressToken;
    router.serverMessage({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: tokenB, progress: 1 } });
    expect(sb.notes).toEqual([{ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 1, progress: 1 } }]);
    expect(sa.notes).toEqual([]);
    router.serverMessage({ jsonrpc: '2.0', id: ua?.id ?? null, result: { ok: 'a' } });
    expect(sa.answers).toEqual([{ jsonrpc: '2.0', id: 1, result: { ok: 'a' } }]);
    expect(sb.answers).toEqual([]);
  });

  it('maps client cancellations to the upstream id and drops unknown ones', () => {
    const { upstream, router, session, sink } = setup();
    const a = session('a');
    router.request(a, { jsonrpc: '2.0', id: 'x', method: 'tools/call' }, sink());
    const upstreamId = upstream[0]?.id;
    router.clientMessage(a, { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'x' } });
    router.clientMessage(a, { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'nope' } });
    expect(upstream.slice(1)).toEqual([{ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: upstreamId } }]);
  });

  it('keeps the request ids 1 and "1" of one session apart', () => {
    const { upstream, router, session, sink } = setup();
    const a = session('a');
    router.request(a, { jsonrpc: '2.0', id: 1, method: 'tools/call' }, sink());
    router.request(a, { jsonrpc: '2.0', id: '1', method: 'tools/call' }, sink());
    const [numeric, text] = upstream.map((m) => m.id);
    router.clientMessage(a, { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: '1' } });
    router.clientMessage(a, { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } });
    expect(upstream.slice(2).map((m) => m.params?.requestId)).toEqual([text, numeric]);
  });

  it('broadcasts untargeted notifications, answers server pings itself and sends server requests to one listener', () => {
    const { upstream, router, session } = setup();
    const a = session('a');
    const b = session('b');
    router.serverMessage({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' });
    expect(a.got).toHaveLength(1);
    expect(b.got).toHaveLength(1);
    router.serverMessage({ jsonrpc: '2.0', id: 5, method: 'ping' });
    expect(upstream).toEqual([{ jsonrpc: '2.0', id: 5, result: {} }]);
    router.serverMessage({ jsonrpc: '2.0', id: 6, method: 'roots/list' });
    expect(a.got.length + b.got.length).toBe(3);
  });

  it('ends a session: its pending requests are cancelled upstream and answered with an error', () => {
    const { upstream, router, session, sink } = setup();
    const a = session('a');
    const s = sink();
    router.request(a, { jsonrpc: '2.0', id: 3, method: 'tools/call' }, s);
    expect(router.removeSession('a')).toBe(true);
    expect(router.getSession('a')).toBeUndefined();
    expect(upstream[1]).toMatchObject({ method: 'notifications/cancelled', params: { requestId: upstream[0]?.id } });
    expect(s.answers[0]).toMatchObject({ id: 3, error: { code: -32603 } });
    expect(router.removeSession('a')).toBe(false);
  });

  it('fails pending and later requests once the server is down', () => {
    const { router, session, sink } = setup();
    const a = session('a');
    const before = sink();
    router.request(a, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, before);
    router.serverDown('exited with code 1');
    const after = sink();
    router.request(a, { jsonrpc: '2.0', id: 2, method: 'tools/list' }, after);
    expect(before.answers[0]).toMatchObject({ id: 1, error: { message: 'MCP server is not running: exited with code 1' } });
    expect(after.answers[0]).toMatchObject({ id: 2, error: { code: -32603 } });
  });

  it('sends a server request to the client whose request is in flight, else to the first listener', () => {
    const { upstream, router, session, sink } = setup();
    const a = session('a');
    const b = session('b');
    const c = session('c');
    const fromC = sink();
    const fromB = sink();
    const unreachable: ReplySink = { notify: () => false, answer: () => undefined };
    router.request(c, { jsonrpc: '2.0', id: 1, method: 'tools/call' }, fromC);
    router.request(b, { jsonrpc: '2.0', id: 1, method: 'tools/call' }, fromB);
    router.request(a, { jsonrpc: '2.0', id: 1, method: 'tools/call' }, unreachable);
    const sampling = { jsonrpc: '2.0' as const, id: 0, method: 'sampling/createMessage', params: {} };
    router.serverMessage(sampling);
    expect(fromB.notes).toEqual([sampling]);
    // b's request ends; c's is the newest one whose client can be reached.
    router.serverMessage({ jsonrpc: '2.0', id: upstream[1]?.id ?? null, result: {} });
    router.serverMessage({ ...sampling, id: 1 });
    expect(fromC.notes).toEqual([{ ...sampling, id: 1 }]);
    router.serverMessage({ jsonrpc: '2.0', id: upstream[0]?.id ?? null, result: {} });
    router.serverMessage({ ...sampling, id: 2 });
    expect(a.got).toEqual([{ ...sampling, id: 2 }]);
    expect(b.got.length + c.got.length).toBe(0);
  });

  it('answers a request the server leaves unanswered past the read timeout and cancels it upstream', () => {
    const { upstream, router, session, sink, advance } = setup({ readTimeoutMs: 30_000 });
    const a = session('a');
    const slow = sink();
    const quick = sink();
    router.request(a, { jsonrpc: '2.0', id: 'slow', method: 'tools/call' }, slow);
    advance(20_000);
    router.request(a, { jsonrpc: '2.0', id: 'quick', method: 'tools/call' }, quick);
    advance(10_000);
    expect(slow.answers).toEqual([{ jsonrpc: '2.0', id: 'slow', error: { code: -32001, message: 'upstream did not answer within 30s' } }]);
    expect(upstream[2]).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: upstream[0]?.id, reason: 'proxy read timeout' },
    });
    expect(quick.answers).toEqual([]);
    // A late answer to the timed-out request goes nowhere.
    router.serverMessage({ jsonrpc: '2.0', id: upstream[0]?.id ?? null, result: {} });
    expect(slow.answers).toHaveLength(1);
  });

  it('ends sessions idle for longer than the TTL, but not while a request is in flight', () => {
    const { upstream, router, session, sink, advance } = setup({ sessionTtlMs: 60_000 });
    const idle = session('idle');
    const busy = session('busy');
    let ended = false;
    idle.end = () => (ended = true);
    router.request(busy, { jsonrpc: '2.0', id: 1, method: 'tools/call' }, sink());
    advance(61_000);
    expect(router.getSession('idle')).toBeUndefined();
    expect(ended).toBe(true);
    expect(router.getSession('busy')).toBe(busy);
    router.serverMessage({ jsonrpc: '2.0', id: upstream[0]?.id ?? null, result: {} });
    advance(59_000);
    expect(router.getSession('busy')).toBe(busy);
    advance(2_000);
    expect(router.getSession('busy')).toBeUndefined();
    expect(idle.got).toEqual([]);
  });

  it('initializes a restarted server with the first initialize before sending anything else', async () => {
    const { upstream, router, session, sink } = setup();
    const init = { jsonrpc: '2.0' as const, id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18' } };
    const answered = router.initialize(init);
    router.serverMessage({ jsonrpc: '2.0', id: upstream[0]?.id ?? null, result: { serverInfo: { name: 's' } } });
    await answered;
    const a = session('a');
    const inFlight = sink();
    router.request(a, { jsonrpc: '2.0', id: 1, method: 'tools/call' }, inFlight);
    router.serverDown('killed by SIGKILL');
    expect(inFlight.answers[0]).toMatchObject({ id: 1, error: { message: 'MCP server is not running: killed by SIGKILL' } });
    upstream.length = 0;
    router.serverRestarted();
    expect(router.downReason).toBeUndefined();
    const after = sink();
    router.request(a, { jsonrpc: '2.0', id: 2, method: 'tools/list' }, after);
    router.clientMessage(a, { jsonrpc: '2.0', method: 'notifications/roots/list_changed' });
    expect(upstream).toEqual([{ ...init, id: upstream[0]?.id }]);
    router.serverMessage({ jsonrpc: '2.0', id: upstream[0]?.id ?? null, result: { serverInfo: { name: 's' } } });
    await Promise.resolve();
    expect(upstream.slice(1).map((m) => m.method)).toEqual(['notifications/initialized', 'tools/list', 'notifications/roots/list_changed']);
    router.serverMessage({ jsonrpc: '2.0', id: upstream[2]?.id ?? null, result: { tools: [] } });
    expect(after.answers).toEqual([{ jsonrpc: '2.0', id: 2, result: { tools: [] } }]);
  });

  it('fails held requests when the restarted server refuses to initialize', async () => {
    const { upstream, router, session, sink } = setup();
    const answered = router.initialize({ jsonrpc: '2.0', id: 0, method: 'initialize', params: {} });
    router.serverMessage({ jsonrpc: '2.0', id: upstream[0]?.id ?? null, result: {} });
    await answered;
    router.serverDown('exited with code 1');
    router.serverRestarted();
    const held = sink();
    router.request(session('a'), { jsonrpc: '2.0', id: 5, method: 'tools/list' }, held);
    router.serverMessage({ jsonrpc: '2.0', id: upstream.at(-1)?.id ?? null, error: { code: -32600, message: 'bad version' } });
    await Promise.resolve();
    expect(held.answers[0]).toMatchObject({ id: 5, error: { message: 'MCP server is not running: initialize failed: bad version' } });
    expect(router.downReason).toBe('initialize failed: bad version');
  });
});
