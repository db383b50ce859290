import type { FastifyReply } from 'fastify';
import type { WireFormat } from '../keys/gateway-auth.js';

/*
 * The LLM gateway's own error bodies, in the wire format the client called (PLATFORM-API Part 3 §1.1):
 * the calling SDK parses them as it would its provider's. `message` starts with `<code>: `.
 */

export type GatewayErrorStatus = 400 | 401 | 402 | 403 | 404 | 413 | 500 | 502 | 504;

const OPENAI_TYPES: Record<GatewayErrorStatus, string> = {
  400: 'invalid_request_error',
  413: 'invalid_request_error',
  401: 'invalid_request_error',
  402: 'insufficient_quota',
  403: 'invalid_request_error',
  404: 'invalid_request_error',
  500: 'api_error',
  502: 'api_error',
  504: 'api_error',
};

const ANTHROPIC_TYPES: Record<GatewayErrorStatus, string> = {
  400: 'invalid_request_error',
  413: 'invalid_request_error',
  401: 'authentication_error',
  402: 'billing_error',
  403: 'permission_error',
  404: 'not_found_error',
  500: 'api_error',
  502: 'api_error',
  504: 'timeout_error',
};

const GEMINI_STATUSES: Record<GatewayErrorStatus, string> = {
  400: 'INVALID_ARGUMENT',
  413: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  402: 'RESOURCE_EXHAUSTED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  500: 'INTERNAL',
  502: 'UNAVAILABLE',
  504: 'DEADLINE_EXCEEDED',
};

/** The error body of `format` for a refusal `code` with `detail` (a sentence naming the key, model or budget). */
export function errorBody(format: WireFormat, status: GatewayErrorStatus, code: string, detail: string, requestId: string): unknown {
  const message = `${code}: ${detail}`;
  switch (format) {
    case 'openai':
      return { error: { message, type: OPENAI_TYPES[status], param: null, code } };
    case 'anthropic':
      return { type: 'error', error: { type: ANTHROPIC_TYPES[status], message }, request_id: requestId };
    case 'gemini':
      return { error: { code: status, message, status: GEMINI_STATUSES[status], details: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: code, domain: 'toolyard' }] } };
  }
}

export function sendGatewayError(reply: FastifyReply, format: WireFormat, status: GatewayErrorStatus, code: string, detail: string, requestId: string): FastifyReply {
  return reply.code(status).header('cache-control', 'no-store').type('application/json').send(errorBody(format, status, code, detail, requestId));
}
