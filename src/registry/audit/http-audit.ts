import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { DomainError } from '../../core/errors.js';
import type { HttpApp } from '../../core/http/app.js';
import { readPublishedRecord } from '../entries/service.js';
import type { PublishBody } from '../entries/schemas.js';
import type { AuditLog } from './audit-log.js';
import type { AuditEventName, AuditOutcome, AuditResourceType } from './events.js';

/*
 * The audit trail of the HTTP API, taken at the edge: one onSend hook sees every request once,
 * after authorization and the services have decided, with the request id, the caller and the status.
 * Routes and services stay unaware of it. Which requests are audited operations is the table below,
 * keyed by method and route pattern.
 */

interface Target {
  resourceType: AuditResourceType | null;
  resourceName: string | null;
  version?: string;
}

interface Operation {
  /** The event, or a function of the status when create and update share a route. */
  event: AuditEventName | ((request: FastifyRequest, reply: FastifyReply) => Promise<AuditEventName>);
  target(request: FastifyRequest): Target;
}

export interface HttpAuditOptions {
  log: AuditLog;
  /** Whether a source or registry exists, to name a refused PUT a create or an update. */
  exists(type: 'source' | 'registry', name: string): Promise<boolean>;
}

export interface HttpAudit {
  /** Records an authentication failure (a 401 of the bearer check); `reason` must be a fixed text. */
  authenticationFailed: (request: FastifyRequest, reason: string) => void;
}

type Params = Record<string, string | undefined>;
const param = (request: FastifyRequest, key: string): string | null => (request.params as Params | undefined)?.[key] ?? null;
const ENTRY_TYPES = new Set<string>(['server', 'skill', 'plugin']);
const entryType = (request: FastifyRequest): AuditResourceType | null => {
  const type = param(request, 'type');
  return type !== null && ENTRY_TYPES.has(type) ? (type as AuditResourceType) : null;
};

function published(request: FastifyRequest): Target {
  const body = (request.body ?? {}) as PublishBody;
  try {
    const record = readPublishedRecord(body);
    return { resourceType: record.entryType, resourceName: record.name, version: record.version };
  } catch {
    // an invalid body is audited too, named as far as it can be
    const type = (['server', 'skill', 'plugin'] as const).find((key) => body[key] !== undefined) ?? null;
    const name = type === null ? undefined : (body[type] as { name?: unknown } | null)?.name;
    return { resourceType: type, resourceName: typeof name === 'string' ? name : null };
  }
}

export function registerHttpAudit(app: HttpApp, options: HttpAuditOptions): HttpAudit {
  const { log } = options;
  const putEvent =
    (type: 'source' | 'registry') =>
    async (request: FastifyRequest, reply: FastifyReply): Promise<AuditEventName> => {
      if (reply.statusCode === 201) return `${type}.create`;
      if (reply.statusCode === 200) return `${type}.update`;
      const name = param(request, 'name');
      return name !== null && (await options.exists(type, name).catch(() => false)) ? `${type}.update` : `${type}.create`;
    };
  const named = (resourceType: AuditResourceType) => (request: FastifyRequest) => ({ resourceType, resourceName: param(request, 'name') });
  const entry = (request: FastifyRequest) => ({ resourceType: entryType(request), resourceName: param(request, 'name') });
  const operations: Record<string, Operation> = {
    'PUT /v1/sources/:name': { event: putEvent('source'), target: named('source') },
    'DELETE /v1/sources/:name': { event: 'source.delete', target: named('source') },
    'POST /v1/sources/:name/sync': { event: 'source.sync', target: named('source') },
    'PUT /v1/registries/:name': { event: putEvent('registry'), target: named('registry') },
    'DELETE /v1/registries/:name': { event: 'registry.delete', target: named('registry') },
    'POST /v1/entries': { event: 'entry.publish', target: published },
    'DELETE /v1/entries/:type/:name/versions/:version': {
      event: 'entry.delete',
      target: (request) => ({ ...entry(request), ...(param(request, 'version') !== null && { version: param(request, 'version') ?? '' }) }),
    },
    'GET /v1/entries/:type/:name/claims': { event: 'entry.claims.read', target: entry },
    'PUT /v1/entries/:type/:name/claims': { event: 'entry.claims.update', target: entry },
  };

  const reasons = new WeakMap<FastifyRequest, string>();
  const authFailed = new WeakSet<FastifyRequest>();
  const subjectOf = (request: FastifyRequest) => ((request.caller as FastifyRequest['caller'] | null)?.kind === 'user' ? (request.caller as { subject: string }).subject : null);
  const pathOf = (request: FastifyRequest) => request.routeOptions.url ?? request.url.split('?')[0] ?? '/';

  app.addHook('onError', (request, _reply, error: FastifyError, done) => {
    // only 403 texts are kept: they name roles and resources; other messages may echo request values
    if (error instanceof DomainError && error.status === 403) reasons.set(request, error.message);
    done();
  });

  // recorded as the answer goes out, not after: whoever got the answer finds its record in the log
  app.addHook('onSend', async (request, reply, payload) => {
    if (authFailed.has(request)) return payload;
    const status = reply.statusCode;
    const operation = request.routeOptions.url === undefined ? undefined : operations[`${request.method} ${request.routeOptions.url}`];
    if (!operation && status !== 403) return payload;
    const outcome: AuditOutcome = status < 400 ? 'success' : status === 403 ? 'denied' : 'failure';
    const event = operation ? (typeof operation.event === 'string' ? operation.event : await operation.event(request, reply)) : 'authz.denied';
    const target: Target = operation ? operation.target(request) : { resourceType: deniedResourceType(pathOf(request)), resourceName: param(request, 'registryName') ?? param(request, 'name') };
    const reason = outcome === 'success' ? undefined : (reasons.get(request) ?? describeStatus(status));
    log.record({
      event,
      outcome,
      subject: subjectOf(request),
      resourceType: target.resourceType,
      resourceName: target.resourceName,
      requestId: request.id,
      sourceIp: request.ip,
      ...(target.version !== undefined && { version: target.version }),
      status,
      ...(reason !== undefined && { reason }),
      ...(!operation && { route: `${request.method} ${pathOf(request)}` }),
    });
    return payload;
  });

  return {
    authenticationFailed(request, reason) {
      authFailed.add(request);
      log.record({
        event: 'auth.failure',
        outcome: 'failure',
        subject: null,
        resourceType: null,
        resourceName: null,
        requestId: request.id,
        sourceIp: request.ip,
        status: 401,
        reason,
        route: `${request.method} ${pathOf(request)}`,
      });
    },
  };
}

function deniedResourceType(path: string): AuditResourceType | null {
  if (path.startsWith('/v1/sources')) return 'source';
  if (path.startsWith('/v1/registries') || path.startsWith('/registry/')) return 'registry';
  return null;
}

const STATUS_TEXT: Record<number, string> = {
  400: 'invalid input',
  401: 'authentication required',
  404: 'not found',
  405: 'method not allowed',
  409: 'conflict',
  412: 'precondition failed',
  413: 'request too large',
  415: 'unsupported media type',
  428: 'precondition required',
  503: 'unavailable',
};

function describeStatus(status: number): string {
  return STATUS_TEXT[status] ?? (status >= 500 ? 'internal error' : `refused with status ${status}`);
}
