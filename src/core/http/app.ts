import { randomUUID } from 'node:crypto';
import Fastify, { LogController, type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest, type RawServerDefault } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import createRouter from 'find-my-way';
import type { Logger } from 'pino';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { DomainError } from '../errors.js';
import type { HttpMetrics } from '../telemetry/metrics.js';
import { drainRequest } from './drain-request.js';
import { describeFrameworkError, parseJsonBody } from './framework-errors.js';
import { answerUnroutedRequests, createClientErrorHandler } from './protocol-errors.js';
import { lazySerializers } from './lazy-compilers.js';
import { createValidatorCompiler, describeValidation, refuseUnstorableText } from './validation.js';

export type HttpApp = FastifyInstance<RawServerDefault, IncomingMessage, ServerResponse, Logger, TypeBoxTypeProvider>;

export interface HttpAppOptions {
  logger: Logger;
  metrics?: HttpMetrics;
  /** Largest accepted request body in bytes (413 above). */
  bodyLimit?: number;
}

const TEN_MIB = 10 * 1024 * 1024;

/**
 * The Fastify app every service starts from: `{error}` bodies for every failure (Node's parser,
 * Fastify's own errors and ours alike), 405 with `Allow` for a known path asked with the wrong
 * method, no NUL character or lone surrogate in any input, numbers in query strings and paths as
 * plain decimal digits, request ids, and request metrics by route pattern.
 */
export function createHttpApp(options: HttpAppOptions): HttpApp {
  const bodyLimit = options.bodyLimit ?? TEN_MIB;
  const app = Fastify({
    loggerInstance: options.logger,
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit,
    genReqId: (request) => {
      const given = request.headers['x-request-id'];
      return typeof given === 'string' && /^[\w.-]{1,128}$/.test(given) ? given : randomUUID();
    },
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 1024 },
    // Node would answer a missing Host with an empty 400: the onRequest hook below answers it instead
    http: { requireHostHeader: false },
    clientErrorHandler: createClientErrorHandler(options.logger),
    frameworkErrors: (error, request, reply) => void sendError(error, request, reply),
    schemaController: { compilersFactory: { buildSerializer: lazySerializers() } },
  }).withTypeProvider<TypeBoxTypeProvider>();
  app.setValidatorCompiler(createValidatorCompiler());
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, parseJsonBody);

  const known = createRouter();
  const methods = new Set<string>();
  app.addHook('onRoute', (route) => {
    for (const method of Array.isArray(route.method) ? route.method : [route.method]) {
      methods.add(method);
      if (method === 'HEAD') continue;
      try {
        known.on(method as 'GET', route.url, () => undefined);
      } catch {
        // the same pattern registered twice (HEAD twins, prefixes): the first is enough to answer 405
      }
    }
  });
  answerUnroutedRequests(app.server, () => [...methods].sort());

  app.addHook('onRequest', (request, reply, done) => {
    void reply.header('x-request-id', request.id);
    if (request.raw.httpVersion === '1.1' && request.headers.host === undefined) {
      void reply.code(400).header('connection', 'close').send({ error: 'the Host header is required in HTTP/1.1 requests' });
      return;
    }
    done();
  });
  app.addHook('preValidation', (request, _reply, done) => {
    refuseUnstorableText(request);
    done();
  });
  app.addHook('onSend', (request, _reply, payload, done) => {
    // a client still sending more than twice the limit, or for longer than 5 s, is cut off
    const draining = drainRequest(request.raw, { limitBytes: 2 * bodyLimit, timeoutMs: 5_000 });
    if (draining) void draining.then(() => done(null, payload));
    else done(null, payload);
  });
  const { metrics } = options;
  if (metrics) {
    app.addHook('onResponse', (request, reply, done) => {
      const route = request.routeOptions.url ?? 'unmatched';
      const labels = { method: request.method, route };
      metrics.requests.inc({ ...labels, status: String(reply.statusCode) });
      metrics.duration.observe(labels, reply.elapsedTime / 1000);
      done();
    });
  }

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? '/';
    const allowed = ['GET', 'PUT', 'POST', 'DELETE', 'PATCH'].filter((method) => known.find(method as 'GET', path) !== null);
    if (allowed.length > 0) {
      if (allowed.includes('GET')) allowed.push('HEAD');
      return reply.code(405).header('allow', allowed.join(', ')).send({ error: `${request.method} is not allowed on ${path}; use ${allowed.join(', ')}` });
    }
    return reply.code(404).send({ error: `no route for ${request.method} ${path}` });
  });

  /** The one place an error becomes a status and an `{error}` body; a 5xx never carries detail. */
  function sendError(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
    if (error instanceof DomainError) {
      if (error.status >= 500) request.log.warn({ err: error }, 'request failed');
      return reply.code(error.status).headers(error.headers).send({ error: error.message });
    }
    if (error.validation) {
      return reply.code(400).send({ error: describeValidation(error) });
    }
    const status = error.statusCode ?? 500;
    if (status >= 400 && status < 500) return reply.code(status).send({ error: describeFrameworkError(error, request, bodyLimit) ?? error.message });
    request.log.error({ err: error, requestId: request.id }, 'unexpected error');
    return reply.code(500).send({ error: 'internal server error' });
  }
  app.setErrorHandler(sendError);
  return app;
}
