import { AsyncLocalStorage } from 'node:async_hooks';
import type { Attributes, Context, Span, SpanKind } from '@opentelemetry/api';
import type { SpanExporter } from '@opentelemetry/sdk-trace-base';

/*
 * OpenTelemetry tracing without global state: one tracer provider per app (tests and replicas in one
 * process never share spans), and the active span kept in an AsyncLocalStorage of this module rather
 * than in the global context manager. The SDK is imported only when tracing is on, so a server without
 * `telemetry.endpoint` loads none of it.
 */

export interface TracingOptions {
  /** OTLP/HTTP collector: its base URL (`/v1/traces` is appended) or the full traces URL. */
  endpoint?: string | undefined;
  serviceName: string;
  serviceVersion?: string;
  /** Spans go to this exporter, one by one, instead of OTLP (tests). */
  exporter?: SpanExporter;
}

export interface StartSpanOptions {
  kind?: 'server' | 'client' | 'internal';
  attributes?: Attributes;
  /** The parent, for a span that starts a trace of its own or continues a caller's (W3C traceparent). */
  parent?: Context;
  /** Left unended when its parent ends (a statement that failed): ended then as an error. */
  endsWithParent?: boolean;
}

export interface Tracing {
  startSpan(name: string, options?: StartSpanOptions): Span;
  /** Ends a span, and its children that were left open, as errors. */
  endSpan(span: Span): void;
  /** Runs `work` with `span` active: spans started inside are its children. */
  runWith<T>(span: Span, work: () => T): T;
  /** Makes `span` active for the rest of the current asynchronous execution. */
  enter(span: Span): void;
  /** Whether a span is active here (work outside any request or sync is not traced). */
  hasActiveSpan(): boolean;
  /** The parent context a W3C `traceparent` header names, or a new root. */
  extract(headers: Record<string, string | string[] | undefined>): Context;
  markError(span: Span, message: string): void;
  flush(): Promise<void>;
  shutdown(): Promise<void>;
}

export function tracesUrl(endpoint: string): string {
  const trimmed = endpoint.replace(/\/+$/, '');
  return trimmed.endsWith('/v1/traces') ? trimmed : `${trimmed}/v1/traces`;
}

/** Tracing per the options, or undefined when neither an endpoint nor an exporter is given. */
export async function createTracing(options: TracingOptions): Promise<Tracing | undefined> {
  if (options.endpoint === undefined && options.exporter === undefined) return undefined;
  const [api, core, sdk, resources, semconv] = await Promise.all([
    import('@opentelemetry/api'),
    import('@opentelemetry/core'),
    import('@opentelemetry/sdk-trace-base'),
    import('@opentelemetry/resources'),
    import('@opentelemetry/semantic-conventions'),
  ]);
  let exporter = options.exporter;
  if (exporter === undefined) {
    const { OTLPTraceExporter } = await import('@opentelemetry/exporter-trace-otlp-http');
    exporter = new OTLPTraceExporter({ url: tracesUrl(options.endpoint ?? '') });
  }
  const provider = new sdk.BasicTracerProvider({
    resource: resources.resourceFromAttributes({
      [semconv.ATTR_SERVICE_NAME]: options.serviceName,
      ...(options.serviceVersion !== undefined && { [semconv.ATTR_SERVICE_VERSION]: options.serviceVersion }),
    }),
    spanProcessors: [options.exporter ? new sdk.SimpleSpanProcessor(exporter) : new sdk.BatchSpanProcessor(exporter)],
  });
  const tracer = provider.getTracer('toolyard');
  const propagator = new core.W3CTraceContextPropagator();
  const active = new AsyncLocalStorage<Context>();
  const kinds: Record<NonNullable<StartSpanOptions['kind']>, SpanKind> = { server: api.SpanKind.SERVER, client: api.SpanKind.CLIENT, internal: api.SpanKind.INTERNAL };
  // children that must not outlive their parent, by parent
  const dangling = new WeakMap<Span, Set<Span>>();
  const parentOf = new WeakMap<Span, Span>();
  const spanGetter = { get: (carrier: Record<string, unknown>, key: string) => carrier[key] as string | string[] | undefined, keys: (carrier: Record<string, unknown>) => Object.keys(carrier) };

  const markError = (span: Span, message: string) => span.setStatus({ code: api.SpanStatusCode.ERROR, message });
  return {
    startSpan(name, spanOptions = {}) {
      const context = spanOptions.parent ?? active.getStore() ?? api.ROOT_CONTEXT;
      const span = tracer.startSpan(name, { kind: kinds[spanOptions.kind ?? 'internal'], ...(spanOptions.attributes && { attributes: spanOptions.attributes }) }, context);
      const parent = api.trace.getSpan(context);
      if (spanOptions.endsWithParent && parent) {
        const children = dangling.get(parent) ?? new Set<Span>();
        children.add(span);
        dangling.set(parent, children);
        parentOf.set(span, parent);
      }
      return span;
    },
    endSpan(span) {
      for (const child of dangling.get(span) ?? []) {
        markError(child, 'no result: the statement failed or was abandoned');
        child.end();
      }
      dangling.delete(span);
      const parent = parentOf.get(span);
      if (parent) dangling.get(parent)?.delete(span);
      span.end();
    },
    runWith: (span, work) => active.run(api.trace.setSpan(active.getStore() ?? api.ROOT_CONTEXT, span), work),
    enter(span) {
      active.enterWith(api.trace.setSpan(active.getStore() ?? api.ROOT_CONTEXT, span));
    },
    hasActiveSpan: () => {
      const store = active.getStore();
      return store !== undefined && api.trace.getSpan(store)?.isRecording() === true;
    },
    extract: (headers) => propagator.extract(api.ROOT_CONTEXT, headers, spanGetter),
    markError,
    flush: () => provider.forceFlush(),
    shutdown: () => provider.shutdown(),
  };
}
