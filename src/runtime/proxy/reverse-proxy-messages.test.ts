import { describe, expect, it } from 'vitest';
import { errorResponse, type JsonRpcMessage } from './jsonrpc.js';
import type { McpMiddleware } from './middleware.js';
import { applyInbound, idKey, rewriteAnswers } from './reverse-proxy-messages.js';

/** Renames tool "a" to "b" on the way up, refuses "blocked", marks tools/list answers on the way down. */
const middleware: McpMiddleware = {
  inbound: (message) => {
    if (message.params?.name === 'blocked') return { ok: false, status: 429, headers: { 'retry-after': '5' }, body: errorResponse(message.id ?? null, -32000, 'no') };
    if (message.params?.name === 'a') return { ok: true, message: { ...message, params: { ...message.params, name: 'b' } } };
    return { ok: true, message };
  },
  outbound: (method, answer) => ({ ...answer, result: { rewrittenFor: method } }),
  rewrites: (method) => method === 'tools/list',
};

const call = (id: number, name: string): JsonRpcMessage => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name } });

describe('applyInbound', () => {
  it('forwards the original bytes when the middleware changes nothing', () => {
    const body = Buffer.from(' {"jsonrpc":"2.0","id":"x","method":"tools/list"} ');
    const result = applyInbound(body, middleware, 'u');
    expect(result).toEqual({ ok: true, body, rewrites: new Map([[idKey('x'), 'tools/list']]), id: 'x' });
  });

  it('sends the changed message and leaves bodies that are not JSON-RPC alone', () => {
    const changed = applyInbound(Buffer.from(JSON.stringify(call(1, 'a'))), middleware, 'u');
    expect(changed.ok && JSON.parse(changed.body.toString())).toEqual(call(1, 'b'));
    const form = Buffer.from('grant_type=client_credentials');
    expect(applyInbound(form, middleware, 'u')).toMatchObject({ ok: true, body: form, id: null });
  });

  it('refuses a whole batch when one of its requests is refused', () => {
    const batch = Buffer.from(JSON.stringify([call(1, 'a'), call(2, 'blocked')]));
    expect(applyInbound(batch, middleware, 'u')).toMatchObject({ ok: false, status: 429, headers: { 'retry-after': '5' } });
  });
});

describe('rewriteAnswers', () => {
  it('rewrites only answers whose typed id is pending, once', () => {
    const pending = new Map([[idKey(1), 'tools/list']]);
    const text = JSON.stringify([{ jsonrpc: '2.0', id: '1', result: {} }, { jsonrpc: '2.0', id: 1, result: {} }]);
    expect(JSON.parse(rewriteAnswers(text, pending, middleware) ?? '')).toEqual([
      { jsonrpc: '2.0', id: '1', result: {} },
      { jsonrpc: '2.0', id: 1, result: { rewrittenFor: 'tools/list' } },
    ]);
    expect(pending.size).toBe(0);
    expect(rewriteAnswers(JSON.stringify({ jsonrpc: '2.0', id: 1, result: {} }), pending, middleware)).toBeUndefined();
  });

  it('passes error answers and notifications through', () => {
    const pending = new Map([[idKey(3), 'tools/list']]);
    expect(rewriteAnswers(JSON.stringify(errorResponse(3, -32000, 'x')), pending, middleware)).toBeUndefined();
    expect(rewriteAnswers('{"jsonrpc":"2.0","method":"notifications/progress"}', pending, middleware)).toBeUndefined();
    expect(rewriteAnswers('not json', pending, middleware)).toBeUndefined();
  });
});
