import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** One Prometheus registry per app instance, so tests and replicas in one process never share counters. */
export function createMetricsRegistry(options: { defaultMetrics?: boolean } = {}): Registry {
  const registry = new Registry();
  if (options.defaultMetrics ?? true) collectDefaultMetrics({ register: registry, prefix: 'toolyard_' });
  return registry;
}

export interface HttpMetrics {
  requests: Counter<'method' | 'route' | 'status'>;
  duration: Histogram<'method' | 'route'>;
}

export function createHttpMetrics(registry: Registry): HttpMetrics {
  return {
    requests: new Counter({
      name: 'toolyard_http_requests_total',
      help: 'HTTP requests by method, route pattern and status code',
      labelNames: ['method', 'route', 'status'],
      registers: [registry],
    }),
    duration: new Histogram({
      name: 'toolyard_http_request_duration_seconds',
      help: 'HTTP request duration by method and route pattern',
      labelNames: ['method', 'route'],
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers: [registry],
    }),
  };
}

export { Counter, Gauge, Histogram, Registry };
