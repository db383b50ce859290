import type { FastifyRequest } from 'fastify';
import type { Caller } from '../../core/auth/caller.js';

export function callerOf(request: FastifyRequest): Caller {
  return request.caller;
}
