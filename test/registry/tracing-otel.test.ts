import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { InMemorySpanExporter, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { createDatabase } from '../../src/core/db/database.js';
import { silentLogger } from '../../src/core/telemetry/logger.js';
import { createSqlTracingPlugin } from '../../src/core/telemetry/sql-tracing.js';
import { createTracing, tracesUrl } from '../../src/core/telemetry/tracing.js';
import { buildRegistryApp, type RegistryApp } from '../../src/registry/app.js';
import { catalogFile, registryConfig } from '../helpers/registry.js';

/*
 * Traces of HTTP requests, SQL statements and syncs through the real app: spans collected in memory for
 * their shape and parentage, and one run against an in-process OTLP/HTTP receiver for the export.
 */

const SPAN_STATUS_ERROR = 2;
const CALLER_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const CALLER_SPAN = '00f067aa0ba902b7';

function build(config: Record<string, unknown> = {}, spanExporter?: InMemorySpanExporter): Promise<RegistryApp> {
  return buildRegistryApp({
    config: registryConfig({ database: { dataDir: 'memory://' }, ...config }),
    logger: silentLogger,
    backgroundSync: false,
    providerOptions: { httpBackoffMs: 5 },
    ...(spanExporter && { spanExporter }),
  });
}

const childrenOf = (spans: ReadableSpan[], parent: ReadableSpan) => spans.filter((span) => span.parentSpanContext?.spanId === parent.spanContext().spanId);

describe('traces in memory', () => {
  const exporter = new InMemorySpanExporter();
  let app: RegistryApp;
  let catalog: string;

  beforeAll(async () => {
    catalog = await catalogFile({ version: '1.0.0', meta: {}, data: { servers: [{ name: 'io.test/traced', version: '1.0.0', description: 'traced' }] } });
    app = await build({}, exporter);
  });
  afterEach(() => exporter.reset());
  afterAll(async () => {
    await app.close();
  });

  it('makes a server span per request, named by route, continuing the caller trace, with its SQL as children', async () => {
    const response = await app.http.inject({
      method: 'GET',
      url: '/v1/sources?x=1',
      headers: { traceparent: `00-${CALLER_TRACE}-${CALLER_SPAN}-01`, 'x-request-id': 'trace-me' },
    });
    expect(response.statusCode).toBe(200);
    const spans = exporter.getFinishedSpans();
    const server = spans.find((span) => span.name === 'GET /v1/sources');
    expect(server).toBeDefined();
    if (!server) return;
    expect(server.attributes).toMatchObject({
      'http.request.method': 'GET',
      'http.route': '/v1/sources',
      'url.path': '/v1/sources',
      'http.response.status_code': 200,
      'toolyard.request_id': 'trace-me',
    });
    expect(server.spanContext().traceId).toBe(CALLER_TRACE);
    expect(server.parentSpanContext?.spanId).toBe(CALLER_SPAN);
    const sql = childrenOf(spans, server);
    expect(sql.map((span) => span.name)).toContain('SELECT sources');
    for (const span of sql) {
      expect(span.spanContext().traceId).toBe(CALLER_TRACE);
      expect(span.attributes['db.system.name']).toBe('postgresql');
    }
  });

  it('marks a 5xx-free failure as a plain span and keeps the status code', async () => {
    const response = await app.http.inject({ method: 'GET', url: '/v1/sources/absent' });
    expect(response.statusCode).toBe(404);
    const server = exporter.getFinishedSpans().find((span) => span.name === 'GET /v1/sources/:name');
    expect(server?.attributes['http.response.status_code']).toBe(404);
    expect(server?.status.code).not.toBe(SPAN_STATUS_ERROR);
  });

  it('makes a span per sync with the source name and outcome, SQL inside it', async () => {
    expect((await app.http.inject({ method: 'PUT', url: '/v1/sources/traced', payload: { file: { path: catalog } } })).statusCode).toBe(201);
    expect((await app.http.inject({ method: 'PUT', url: '/v1/sources/broken', payload: { file: { path: `${catalog}.missing` } } })).statusCode).toBe(201);
    exporter.reset();
    while ((await app.scheduler.runDue()).size > 0);
    const spans = exporter.getFinishedSpans();
    const good = spans.find((span) => span.name === 'sync traced');
    expect(good?.attributes).toMatchObject({ 'toolyard.source.name': 'traced', 'toolyard.sync.outcome': 'changed' });
    expect(good?.parentSpanContext).toBeUndefined();
    if (good) expect(childrenOf(spans, good).map((span) => span.name)).toEqual(expect.arrayContaining([expect.stringMatching(/^(INSERT|UPDATE|SELECT|SQL)/)]));
    const bad = spans.find((span) => span.name === 'sync broken');
    expect(bad?.attributes['toolyard.sync.outcome']).toBe('failed');
    expect(bad?.status.code).toBe(SPAN_STATUS_ERROR);
  });

  it('leaves background SQL outside requests and syncs untraced', async () => {
    await app.readModel.refresh();
    expect(exporter.getFinishedSpans()).toEqual([]);
  });
});

describe('SQL spans', () => {
  it('ends the span of a failed statement as an error with its parent', async () => {
    const exporter = new InMemorySpanExporter();
    const tracing = await createTracing({ serviceName: 'sql-test', exporter });
    const database = await createDatabase<Record<string, never>>({ dataDir: 'memory://' });
    try {
      if (!tracing) throw new Error('tracing is on with an exporter');
      const db = database.db.withPlugin(createSqlTracingPlugin(tracing));
      const parent = tracing.startSpan('work');
      await tracing.runWith(parent, async () => {
        await sql`select 1`.execute(db);
        await expect(sql`select * from no_such_table`.execute(db)).rejects.toThrow();
      });
      tracing.endSpan(parent);
      const spans = exporter.getFinishedSpans();
      const children = spans.filter((span) => span.parentSpanContext?.spanId === parent.spanContext().spanId);
      expect(children.map((span) => span.status.code).sort()).toEqual([0, SPAN_STATUS_ERROR]);
      await tracing.shutdown();
    } finally {
      await database.close();
    }
  });
});

describe('tracing settings', () => {
  it('is off without telemetry.endpoint', async () => {
    expect(await createTracing({ serviceName: 'x' })).toBeUndefined();
    const app = await build();
    try {
      // no tracing hook: the request is answered as before and no traceparent handling happens
      const response = await app.http.inject({ method: 'GET', url: '/health', headers: { traceparent: `00-${CALLER_TRACE}-${CALLER_SPAN}-01` } });
      expect(response.statusCode).toBe(200);
    } finally {
      await app.close();
    }
  });

  it('refuses an endpoint that is not an http(s) URL', () => {
    expect(() => registryConfig({ telemetry: { endpoint: 'collector:4318' } })).toThrow(/telemetry\.endpoint/);
    expect(registryConfig({ telemetry: { endpoint: 'http://collector:4318' } }).telemetry).toEqual({ endpoint: 'http://collector:4318', serviceName: 'toolyard-registry' });
  });

  it('names the OTLP traces URL from a base URL or a full one', () => {
    expect(tracesUrl('http://collector:4318')).toBe('http://collector:4318/v1/traces');
    expect(tracesUrl('http://collector:4318/')).toBe('http://collector:4318/v1/traces');
    expect(tracesUrl('https://otel.example.com/v1/traces')).toBe('https://otel.example.com/v1/traces');
  });
});

describe('OTLP/HTTP export', () => {
  let receiver: Server;
  let endpoint = '';
  const received: { path: string; contentType: string | undefined; body: string }[] = [];

  beforeAll(async () => {
    receiver = createServer((request: IncomingMessage, response) => {
      let body = '';
      request.setEncoding('utf8');
      request.on('data', (chunk: string) => (body += chunk));
      request.on('end', () => {
        received.push({ path: request.url ?? '', contentType: request.headers['content-type'], body });
        response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    endpoint = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    receiver.closeAllConnections();
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
  });

  it('posts the spans to telemetry.endpoint when the app stops', async () => {
    const app = await build({ telemetry: { endpoint, serviceName: 'registry-under-test' } });
    expect((await app.http.inject({ method: 'GET', url: '/v1/registries' })).statusCode).toBe(200);
    await app.close();
    const posts = received.filter((post) => post.path === '/v1/traces');
    expect(posts.length).toBeGreaterThan(0);
    expect(posts[0]?.contentType).toContain('application/json');
    const text = posts.map((post) => post.body).join('\n');
    expect(text).toContain('GET /v1/registries');
    expect(text).toContain('registry-under-test');
    expect(text).toContain('SELECT registries');
  });
});
