import type { FastifyRequest } from 'fastify';
import type { HttpApp } from '../../core/http/app.js';
import type { Ids } from '../../core/ids.js';
import { errorCodeOf } from './errors.js';

export const AI_GATEWAY_PREFIX = '/ai-gateway';

const REQUEST_ID = /^[A-Za-z0-9._~:/+=-]{1,128}$/;

export const isAiGatewayPath = (url: string) => url === AI_GATEWAY_PREFIX || url.startsWith(`${AI_GATEWAY_PREFIX}/`) || url.startsWith(`${AI_GATEWAY_PREFIX}?`);

/**
 * X-Request-Id of AI gateway management (rule 19): an incoming id of 1–128 characters of
 * [A-Za-z0-9._~:/+=-] is echoed, anything else (a repeated header included) replaced by a new UUID.
 * Registered before authentication, so a 401 carries it too.
 */
export function registerAiGatewayRequestIds(http: HttpApp, ids: Ids): void {
  http.addHook('onRequest', (request, reply, done) => {
    if (!isAiGatewayPath(request.url)) return done();
    const given = request.headers['x-request-id'];
    const id = typeof given === 'string' && REQUEST_ID.test(given) ? given : ids.uuid().toLowerCase();
    request.id = id;
    request.log = request.log.child({ requestId: id });
    void reply.header('x-request-id', id);
    done();
  });
}

/** The error body of AI gateway management (Part 5 §6); authentication answers with it under its prefix. */
export function aiGatewayErrorBody(request: FastifyRequest, status: number, message: string, violations: { field: string; message: string }[] = []) {
  return { error: errorCodeOf(status), message, requestId: request.id, violations };
}
