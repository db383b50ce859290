import { randomUUID } from 'node:crypto';
import Fastify, { LogController, type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest, type RawServerDefault } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import createRouter from 'find-my-way';
import { Ajv } from 'ajv';
import ajvFormats from 'ajv-formats';
import type { Logger } from 'pino';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { DomainError } from '../errors.js';
import type { HttpMetrics } from '../telemetry/metrics.js';

export type HttpApp = FastifyInstance<RawServerDefault, IncomingMessage, ServerResponse, Logger, TypeBoxTypeProvider>;

export interface HttpAppOptions {
  logger: Logger;
  metrics?: HttpMetrics;
  /** Largest accepted request body in bytes (413 above). */
  bodyLimit?: number;
}

const TEN_MIB = 10 * 1024 * 1024;

function createAjv(coerceTypes: 'array' | false): Ajv {
  const ajv = new Ajv({ coerceTypes, useDefaults: true, removeAdditional: false, allErrors: false, strict: false });
  // ajv-formats is CommonJS with an ES default export: under NodeNext the plugin is `.default`
  ajvFormats.default(ajv);
  return ajv;
}

/**
 * Query strings and path parameters arrive as text and are coerced to their declared types; JSON
 * bodies are not, so `{claims: {org: 3}}` is refused instead of being stored as "3".
 */
const validators = { strings: createAjv('array'), body: createAjv(false) };

/**
 * The Fastify app every service starts from: `{error}` bodies for every failure, 405 with `Allow` for a
 * known path asked with the wrong method, request ids, and request metrics by route pattern.
 */
export function createHttpApp(options: HttpAppOptions): HttpApp {
  const app = Fastify({
    loggerInstance: options.logger,
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: options.bodyLimit ?? TEN_MIB,
    genReqId: (request) => {
      const given = request.headers['x-request-id'];
      return typeof given === 'string' && /^[\w.-]{1,128}$/.test(given) ? given : randomUUID();
    },
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 1024 },
  }).withTypeProvider<TypeBoxTypeProvider>();
  app.setValidatorCompiler(({ schema, httpPart }) => (httpPart === 'body' ? validators.body : validators.strings).compile(schema));

  const known = createRouter();
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const method of methods) {
      if (method === 'HEAD') continue;
      try {
        known.on(method as 'GET', route.url, () => undefined);
      } catch {
        // the same pattern registered twice (HEAD twins, prefixes): the first is enough to answer 405
      }
    }
  });

  app.addHook('onRequest', (request, reply, done) => {
    void reply.header('x-request-id', request.id);
    done();
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

  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    if (error instanceof DomainError) {
      if (error.status >= 500) request.log.warn({ err: error }, 'request failed');
      return reply.code(error.status).headers(error.headers).send({ error: error.message });
    }
    if (error.validation) {
      return reply.code(400).send({ error: describeValidation(error) });
    }
    const status = error.statusCode ?? 500;
    if (status >= 400 && status < 500) return reply.code(status).send({ error: error.message });
    request.log.error({ err: error, requestId: request.id }, 'unexpected error');
    return reply.code(500).send({ error: 'internal server error' });
  });
  return app;
}

/** Turns Ajv's report into one sentence naming the parameter: `limit: must be <= 100`. */
function describeValidation(error: FastifyError): string {
  const first = error.validation?.[0];
  if (!first) return error.message;
  const context = error.validationContext ?? 'request';
  const path = first.instancePath.replace(/^\//, '').replace(/\//g, '.');
  const missing = (first.params as { missingProperty?: string }).missingProperty;
  const extra = (first.params as { additionalProperty?: string }).additionalProperty;
  const where = [path, missing ?? extra].filter(Boolean).join('.');
  const subject = where === '' ? context : context === 'body' ? `body.${where}` : where;
  if (extra !== undefined) return `${subject}: unknown field`;
  if (missing !== undefined) return `${subject}: is required`;
  const allowed = (first.params as { allowedValues?: unknown[] }).allowedValues;
  return `${subject}: ${first.message ?? 'is invalid'}${allowed ? ` (${allowed.join(', ')})` : ''}`;
}
