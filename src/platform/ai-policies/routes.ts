import type { FastifyError, FastifyInstance, FastifyRequest } from 'fastify';
import { DomainError } from '../../core/errors.js';
import { describeFrameworkError } from '../../core/http/framework-errors.js';
import type { HttpApp } from '../../core/http/app.js';
import { ref } from '../../core/http/schemas.js';
import type { PlatformAccess } from '../identity/access.js';
import type { RawBody } from './body.js';
import { ViolationsError } from './errors.js';
import { createListEncoder } from './list.js';
import { AI_GATEWAY_PREFIX, aiGatewayErrorBody } from './request-id.js';
import { AiErrorSchema, AiPolicyListSchema, AiPolicySchema, ListQuerySchema, NameParamsSchema } from './schemas.js';
import type { AiPolicyService } from './service.js';

export interface AiGatewayRouteOptions {
  /** The authorized service (authorizeAiPolicies). */
  service: AiPolicyService;
  access: PlatformAccess;
  /** Takes one token of the caller's bucket (429 when empty). */
  rateLimit: (caller: string) => void;
  bodyLimit: number;
  /** Routes of other parts of AI gateway management (models, identities), added in the same scope. */
  more?: (scope: FastifyInstance) => void;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** An AI gateway route that takes no token of the caller's rate limit bucket (gateway identity). */
    aiUnlimited?: boolean;
  }
}

const ifMatchOf = (request: FastifyRequest): string | undefined => {
  const value = request.headers['if-match'];
  return Array.isArray(value) ? value.join(',') : value;
};

/**
 * AI gateway management (/ai-gateway/v1, PLATFORM-API Part 5) in its own scope: its error body
 * `{error, message, requestId, violations[]}` for every failure there (framework ones included), bodies
 * kept unparsed until the roles are checked (403 comes before 400), and the per-caller rate limit after
 * authentication (401, then 429).
 */
export async function registerAiGatewayRoutes(http: HttpApp, options: AiGatewayRouteOptions): Promise<void> {
  const { service, access } = options;
  const encodeList = createListEncoder();
  await http.register(
    (scope: FastifyInstance, _options, done) => {
      scope.removeAllContentTypeParsers();
      scope.addContentTypeParser('*', { parseAs: 'string', bodyLimit: options.bodyLimit }, (request, text, next) => {
        next(null, { contentType: request.headers['content-type'], text: String(text) } satisfies RawBody);
      });

      scope.addHook('onRequest', (request, _reply, next) => {
        if (request.routeOptions.config.aiUnlimited) return next();
        const actor = access.actorOf(request);
        options.rateLimit(`${actor.issuer ?? ''}\u0000${actor.subject}`);
        next();
      });

      scope.setErrorHandler((error: FastifyError, request, reply) => {
        if (error instanceof DomainError) {
          if (error.status >= 500) request.log.warn({ err: error, requestId: request.id }, 'request failed');
          const violations = error instanceof ViolationsError ? error.violations : [];
          return reply.code(error.status).headers(error.headers).send(aiGatewayErrorBody(request, error.status, error.message, violations));
        }
        if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return reply.code(413).send(aiGatewayErrorBody(request, 413, `the request body is larger than ${String(options.bodyLimit)} bytes`));
        const status = error.statusCode ?? 500;
        if (status >= 400 && status < 500) return reply.code(status === 415 ? 400 : status).send(aiGatewayErrorBody(request, status, describeFrameworkError(error, request, options.bodyLimit) ?? error.message));
        request.log.error({ err: error, requestId: request.id }, 'unexpected error');
        return reply.code(500).send(aiGatewayErrorBody(request, 500, 'the server failed to handle this request'));
      });
      scope.setNotFoundHandler((request, reply) =>
        reply.code(404).send(aiGatewayErrorBody(request, 404, `no route for ${request.method} ${request.url.split('?')[0] ?? ''}`)),
      );

      const tags = ['AI gateway management'];
      const errors = Object.fromEntries([400, 401, 403, 404, 409, 412, 413, 422, 428, 429, 503].map((status) => [status, ref(AiErrorSchema)]));
      const policy = ref(AiPolicySchema);

      scope.post(
        '/v1/policies',
        { schema: { tags, summary: 'Create an AI policy (a full AIPolicy as application/json); 201 with ETag and Location (aiPolicyAdmin)', response: { 201: policy, ...errors } } },
        async (request, reply) => {
          const answer = await service.create(access.actorOf(request), request.body as RawBody | undefined);
          return reply
            .code(201)
            .header('etag', answer.etag)
            .header('location', `${AI_GATEWAY_PREFIX}/v1/policies/${answer.policy.metadata.name}`)
            .send(answer.policy);
        },
      );
      scope.get(
        '/v1/policies',
        { schema: { tags, summary: 'List AI policies in name order, paged by pageToken (auditor, aiPolicyAdmin)', querystring: ListQuerySchema, response: { 200: AiPolicyListSchema, ...errors } } },
        (request, reply) => reply.type('application/json; charset=utf-8').send(encodeList(service.list(access.actorOf(request), request.query as Record<string, unknown>))),
      );
      scope.get(
        '/v1/policies/:name',
        { schema: { tags, summary: 'Get an AI policy; ETag is its quoted resourceVersion (auditor, aiPolicyAdmin)', params: NameParamsSchema, response: { 200: policy, ...errors } } },
        async (request, reply) => {
          const answer = await service.get(access.actorOf(request), (request.params as { name: string }).name);
          return reply.header('etag', answer.etag).send(answer.policy);
        },
      );
      scope.patch(
        '/v1/policies/:name',
        {
          schema: {
            tags,
            summary: 'JSON merge patch (RFC 7396) of spec.description, spec.mcpPolicy, spec.principalMatchers; If-Match required (aiPolicyAdmin)',
            params: NameParamsSchema,
            response: { 200: policy, ...errors },
          },
        },
        async (request, reply) => {
          const answer = await service.patch(access.actorOf(request), (request.params as { name: string }).name, request.body as RawBody | undefined, ifMatchOf(request));
          return reply.header('etag', answer.etag).send(answer.policy);
        },
      );
      scope.delete(
        '/v1/policies/:name',
        { schema: { tags, summary: 'Delete an AI policy; If-Match required (aiPolicyAdmin)', params: NameParamsSchema, response: { 204: { type: 'null' }, ...errors } } },
        async (request, reply) => {
          await service.delete(access.actorOf(request), (request.params as { name: string }).name, ifMatchOf(request));
          return reply.code(204).send();
        },
      );
      options.more?.(scope);
      done();
    },
    { prefix: AI_GATEWAY_PREFIX },
  );
}
