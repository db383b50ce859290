import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Ids } from '../../core/ids.js';
import { describeFrameworkError } from '../../core/http/framework-errors.js';
import type { HttpApp } from '../../core/http/app.js';
import { DomainError } from '../../core/errors.js';
import type { GatewayAuthentication, WireFormat } from '../keys/gateway-auth.js';
import type { CallerIdentities } from '../identity/callers.js';
import type { ModelAdmission } from '../ai-policies/enforcement.js';
import type { ListedModels } from './models.js';
import type { createPipeline, RouteCall } from './pipeline.js';
import { parseGatewayBody, requestProblem } from './request-body.js';
import { sendGatewayError } from './wire.js';

/*
 * The LLM gateway's routes, one wire format each (PLATFORM-API Part 3 §1). They live in their own scope:
 * every error there — a body that is not JSON, too large, of another content type — answers in the
 * route's wire format, and the body is checked (check 1) before the credential (check 2).
 */

export interface GatewayRouteOptions {
  authentication: GatewayAuthentication;
  identities: CallerIdentities;
  pipeline: ReturnType<typeof createPipeline>;
  models: ListedModels;
  modelPolicy: (claims: Readonly<Record<string, unknown>>) => ModelAdmission;
  ids: Ids;
  maxBodyBytes: number;
}

const GEMINI_METHODS = ['generateContent', 'streamGenerateContent'] as const;
const GEMINI_PREFIX = '/llm/v1beta/models/';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The wire format of an LLM gateway route. */
    llmFormat?: WireFormat;
  }
}

const formatOf = (request: FastifyRequest): WireFormat => request.routeOptions.config.llmFormat ?? 'openai';

/** A Gemini path's `{model}:{method}` (the router cannot split at the colon). */
function geminiTarget(request: FastifyRequest): { model: string; method: string } {
  const rest = (request.params as Record<string, string>)['*'] ?? '';
  const colon = rest.lastIndexOf(':');
  return colon < 0 ? { model: rest, method: '' } : { model: rest.slice(0, colon), method: rest.slice(colon + 1) };
}

export async function registerGatewayRoutes(http: HttpApp, options: GatewayRouteOptions): Promise<void> {
  const { authentication, pipeline, ids, maxBodyBytes } = options;
  const hooks = { openai: authentication.hook('openai'), anthropic: authentication.hook('anthropic'), gemini: authentication.hook('gemini') };

  await http.register((scope: FastifyInstance, _options, done) => {
    scope.decorateRequest('llmRawBody', null);
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: maxBodyBytes }, parseGatewayBody);

    // X-Request-Id is the usage event id: a fresh UUID, whatever the client sent
    scope.addHook('onRequest', (request, reply, done) => {
      request.id = ids.uuid();
      void reply.header('x-request-id', request.id);
      done();
    });

    scope.setErrorHandler((error: FastifyError, request, reply) => {
      const format = formatOf(request);
      if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
        return sendGatewayError(reply, format, 413, 'request_too_large', `the request body is larger than the limit of ${String(maxBodyBytes)} bytes`, request.id);
      }
      const status = error instanceof DomainError ? error.status : (error.statusCode ?? 500);
      if (status >= 400 && status < 500) {
        return sendGatewayError(reply, format, 400, 'invalid_request', describeFrameworkError(error, request, maxBodyBytes) ?? error.message, request.id);
      }
      request.log.error({ err: error, requestId: request.id }, 'unexpected error');
      return sendGatewayError(reply, format, 500, 'internal_error', 'the gateway failed to handle this request', request.id);
    });

    /** Check 1, then check 2: the credential is read only for a well-formed request. */
    const admitBody = (pathModel?: (request: FastifyRequest) => string | undefined) => async (request: FastifyRequest, reply: FastifyReply) => {
      const format = formatOf(request);
      const problem = requestProblem(request, format, pathModel?.(request));
      if (problem !== undefined) return sendGatewayError(reply, format, 400, 'invalid_request', problem, request.id);
      return hooks[format](request, reply);
    };
    const streamFlag = (request: FastifyRequest) => (request.body as Record<string, unknown>).stream === true;
    const modelOf = (request: FastifyRequest) => (request.body as Record<string, unknown>).model as string;
    const docs = { tags: ['llm-gateway'] };

    scope.post(
      '/llm/v1/chat/completions',
      { bodyLimit: maxBodyBytes, config: { llmFormat: 'openai' }, preHandler: admitBody(), schema: { ...docs, summary: 'OpenAI chat completions (streaming or not), forwarded to the model\'s provider' } },
      (request, reply) => pipeline({ format: 'openai', route: '/llm/v1/chat/completions', requestedModel: modelOf(request), stream: streamFlag(request) }, request, reply),
    );
    scope.post(
      '/llm/v1/messages',
      { bodyLimit: maxBodyBytes, config: { llmFormat: 'anthropic' }, preHandler: admitBody(), schema: { ...docs, summary: 'Anthropic messages (streaming or not), forwarded to the model\'s provider' } },
      (request, reply) => pipeline({ format: 'anthropic', route: '/llm/v1/messages', requestedModel: modelOf(request), stream: streamFlag(request) }, request, reply),
    );
    scope.post(
      `${GEMINI_PREFIX}*`,
      {
        bodyLimit: maxBodyBytes,
        config: { llmFormat: 'gemini' },
        preHandler: admitBody((request) => geminiTarget(request).model || undefined),
        schema: { ...docs, summary: 'Gemini {model}:generateContent and {model}:streamGenerateContent?alt=sse, forwarded to the model\'s provider' },
      },
      (request, reply) => {
        const { model, method } = geminiTarget(request);
        if (!(GEMINI_METHODS as readonly string[]).includes(method)) {
          return sendGatewayError(reply, 'gemini', 400, 'invalid_request', `the method ${JSON.stringify(method)} is not served: use ${GEMINI_METHODS.join(' or ')}`, request.id);
        }
        const stream = method === 'streamGenerateContent';
        if (stream && (request.query as Record<string, unknown>).alt !== 'sse') {
          return sendGatewayError(reply, 'gemini', 400, 'invalid_request', 'streamGenerateContent is served as server-sent events only: add the query parameter alt=sse', request.id);
        }
        const call: RouteCall = { format: 'gemini', route: `/llm/v1beta/models/{model}:${method}`, requestedModel: model, stream, geminiMethod: method };
        return pipeline(call, request, reply);
      },
    );
    scope.get(
      '/llm/v1/models',
      { config: { llmFormat: 'openai' }, preHandler: hooks.openai, schema: { ...docs, summary: 'The models served on chat completions, sorted by id (OpenAI list)' } },
      async (request, reply) => {
        const principal = request.gatewayPrincipal;
        if (!principal) throw new Error('the gateway authentication step did not run');
        const verdict = await options.identities.resolve(principal);
        if (!verdict.ok) return sendGatewayError(reply, 'openai', 401, verdict.code, verdict.detail, request.id);
        // the same set as AI gateway management's models (rule 14): all or nothing, as v1alpha1 policies decide
        return reply.send(options.models.list({ allowed: options.modelPolicy(verdict.caller.claims).allowed }));
      },
    );
    done();
  });
}
