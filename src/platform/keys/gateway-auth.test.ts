import type { FastifyRequest } from 'fastify';
import { describe, expect, it } from 'vitest';
import { readCredential } from './gateway-auth.js';

const request = (headers: Record<string, string>, query: Record<string, string> = {}) => ({ headers, query }) as unknown as FastifyRequest;
const KEY = `tyk_${'a'.repeat(43)}`;
const JWT = 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJhIn0.c2lnbmF0dXJl';

describe('the credential of a gateway request', () => {
  it('tells a JWT in compact form from a key secret in the Bearer header', () => {
    expect(readCredential(request({ authorization: `Bearer ${KEY}` }), 'openai')).toEqual({ kind: 'key', value: KEY });
    expect(readCredential(request({ authorization: `bearer ${JWT}` }), 'openai')).toEqual({ kind: 'token', value: JWT });
    expect(readCredential(request({ authorization: 'Bearer sk-proj-abc.def' }), 'openai')).toEqual({ kind: 'key', value: 'sk-proj-abc.def' });
  });

  it('reads x-api-key and x-goog-api-key, and the key query parameter only on the Gemini routes', () => {
    expect(readCredential(request({ 'x-api-key': KEY }), 'anthropic')).toEqual({ kind: 'key', value: KEY });
    expect(readCredential(request({ 'x-goog-api-key': KEY }), 'gemini')).toEqual({ kind: 'key', value: KEY });
    expect(readCredential(request({}, { key: KEY }), 'gemini')).toEqual({ kind: 'key', value: KEY });
    expect(readCredential(request({}, { key: KEY }), 'openai')).toBeUndefined();
    expect(readCredential(request({}), 'anthropic')).toBeUndefined();
  });

  it('prefers the Authorization header over the others', () => {
    expect(readCredential(request({ authorization: `Bearer ${KEY}`, 'x-api-key': 'other' }, { key: 'third' }), 'gemini')).toEqual({ kind: 'key', value: KEY });
    expect(readCredential(request({ authorization: 'Basic abc', 'x-api-key': KEY }), 'anthropic')).toEqual({ kind: 'key', value: KEY });
  });
});
