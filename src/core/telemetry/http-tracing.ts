import type { FastifyRequest } from 'fastify';
import type { Span } from '@opentelemetry/api';
import type { HttpApp } from '../http/app.js';
import type { Tracing } from './tracing.js';

/**
 * One server span per request, named by method and route pattern, continuing the caller's trace when it
 * sends a W3C `traceparent`. Register it before any other onRequest hook: the rest of the request
 * (authentication, handler, SQL) runs with the span active.
 */
export function registerHttpTracing(app: HttpApp, tracing: Tracing): void {
  const spans = new WeakMap<FastifyRequest, Span>();
  const finish = (request: FastifyRequest, status: number | undefined) => {
    const span = spans.get(request);
    if (!span) return;
    spans.delete(request);
    if (status === undefined) tracing.markError(span, 'the client went away before the answer');
    else {
      span.setAttribute('http.response.status_code', status);
      if (status >= 500) tracing.markError(span, `status ${status}`);
    }
    tracing.endSpan(span);
  };

  app.addHook('onRequest', (request, _reply, done) => {
    const route = request.routeOptions.url;
    const span = tracing.startSpan(route === undefined ? request.method : `${request.method} ${route}`, {
      kind: 'server',
      parent: tracing.extract(request.headers),
      attributes: {
        'http.request.method': request.method,
        'url.path': request.url.split('?')[0] ?? '/',
        ...(route !== undefined && { 'http.route': route }),
        'client.address': request.ip,
        'toolyard.request_id': request.id,
      },
    });
    spans.set(request, span);
    // done inside the context: every later hook and the handler inherit it
    tracing.runWith(span, done);
  });
  app.addHook('onError', (request, _reply, error, done) => {
    const span = spans.get(request);
    if (span && (error.statusCode ?? 500) >= 500) span.recordException(error);
    done();
  });
  app.addHook('onResponse', (request, reply, done) => {
    finish(request, reply.statusCode);
    done();
  });
  app.addHook('onRequestAbort', (request, done) => {
    finish(request, undefined);
    done();
  });
}
