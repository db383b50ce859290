import type { FastifyRequest } from 'fastify';
import { ANONYMOUS, type Caller } from '../../core/auth/caller.js';

declare module 'fastify' {
  interface FastifyRequest {
    caller: Caller;
  }
}

export function callerOf(request: FastifyRequest): Caller {
  return request.caller;
}

export { ANONYMOUS };
