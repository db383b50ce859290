import { describe, expect, it } from 'vitest';
import type { JsonRpcMessage } from './jsonrpc.js';
import { SessionRouter, type ReplySink, type RouterSession } from './session-router.js';

function setup() {
  const upstream: JsonRpcMessage[] = [];
  const router = new SessionRouter({ send: (m) => upstream.push(m) });
  const session = (id: string): RouterSession & { got: JsonRpcMessage[] } => {
    const got: JsonRpcMessage[] = [];
    const s = { id, got, stream: (m: JsonRpcMessage) => got.push(m) };
    router.addSession(s);
    return s;
  };
  const sink = (): ReplySink & { notes: JsonRpcMessage[]; answers: JsonRpcMessage[] } => {
    const notes: JsonRpcMessage[] = [];
    const answers: JsonRpcMessage[] = [];
    return { notes, answers, notify: (m) => notes.push(m), answer: (m) => answers.push(m) };
  };
  return { upstream, router, session, sink };
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
});
