import type { FastifyError, FastifyRequest } from 'fastify';
import secureJson from 'secure-json-parse';
import { InvalidInputError } from '../errors.js';

/** A long URL or content type quoted in a message is cut, so the answer stays readable. */
function quote(text: string): string {
  return JSON.stringify(text.length > 120 ? `${text.slice(0, 120)}...` : text);
}

/**
 * Fastify's and find-my-way's own errors, reworded for the person who sent the request; undefined for
 * an error this table does not know (the handler then uses the error's own message).
 */
export function describeFrameworkError(error: FastifyError, request: FastifyRequest, bodyLimit: number): string | undefined {
  switch (error.code) {
    case 'FST_ERR_BAD_URL':
      return `the path ${quote(request.url.split('?')[0] ?? '')} is not valid: a % must start an escape of two hex digits that encodes UTF-8 (like %20)`;
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return 'a path segment is longer than 1024 characters';
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return `content-type ${quote(request.headers['content-type'] ?? '')} is not accepted: send the body as application/json`;
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return `the request body is larger than the limit of ${String(bodyLimit)} bytes`;
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return 'the request body is not as long as its Content-Length header says';
    default:
      return undefined;
  }
}

/**
 * The JSON body parser: Fastify's own drops the reason a body is not JSON; this one keeps it (and,
 * like Fastify's, refuses `__proto__` and `constructor.prototype` keys).
 */
export function parseJsonBody(_request: FastifyRequest, body: string, done: (error: Error | null, value?: unknown) => void): void {
  if (body.length === 0) {
    done(new InvalidInputError('body: is empty while content-type is application/json: send a JSON document, or no content-type'));
    return;
  }
  try {
    done(null, secureJson.parse(body, undefined, { protoAction: 'error', constructorAction: 'error' }));
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    done(
      new InvalidInputError(/prototype/.test(reason) ? 'body: "__proto__" and "constructor.prototype" keys are not accepted' : `body: is not valid JSON (${reason})`),
    );
  }
}
