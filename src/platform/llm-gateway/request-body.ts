import type { FastifyRequest } from 'fastify';
import secureJson from 'secure-json-parse';
import { InvalidInputError } from '../../core/errors.js';
import type { WireFormat } from '../keys/gateway-auth.js';

/*
 * Check 1 of admission (PLATFORM-API Part 3 §1.1): a JSON body naming a model, within the gateway's own
 * body limit. The body is kept as received too: most requests are forwarded byte for byte.
 */

declare module 'fastify' {
  interface FastifyRequest {
    /** The LLM gateway's request body as received; null elsewhere. */
    llmRawBody: Buffer | null;
  }
}

const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i;
const MAX_INTERACTION_ID = 128;

/** The gateway's body parser (every content type reaches it, so that a wrong one is refused in the route's wire format). */
export function parseGatewayBody(request: FastifyRequest, body: Buffer, done: (error: Error | null, value?: unknown) => void): void {
  const type = request.headers['content-type'] ?? '';
  if (!JSON_TYPE.test(type)) {
    done(new InvalidInputError(`content-type ${JSON.stringify(type.slice(0, 120))} is not accepted: send the body as application/json`));
    return;
  }
  if (body.length === 0) {
    done(new InvalidInputError('the body is empty: send a JSON object with the request'));
    return;
  }
  request.llmRawBody = body;
  try {
    done(null, secureJson.parse(body, undefined, { protoAction: 'error', constructorAction: 'error' }));
  } catch (error) {
    done(new InvalidInputError(`the body is not valid JSON (${error instanceof Error ? error.message : String(error)})`));
  }
}

/** What is wrong with a request's body or headers for check 1, or undefined. `pathModel`: the Gemini routes name the model in the path. */
export function requestProblem(request: FastifyRequest, format: WireFormat, pathModel: string | undefined): string | undefined {
  const interaction = request.headers['x-interaction-id'];
  if (typeof interaction === 'string' && interaction.length > MAX_INTERACTION_ID) {
    return `the X-Interaction-Id header is ${String(interaction.length)} characters long; at most ${String(MAX_INTERACTION_ID)} are accepted`;
  }
  const { body } = request;
  if (typeof body !== 'object' || body === null || Array.isArray(body) || request.llmRawBody === null) return 'the body must be a JSON object (content-type application/json)';
  if (format === 'gemini') return pathModel ? undefined : 'the path names no model: use /llm/v1beta/models/{model}:generateContent';
  const { model } = body as Record<string, unknown>;
  if (typeof model !== 'string' || model === '') return 'model: is required, the name of the model to call (a string)';
  return undefined;
}
