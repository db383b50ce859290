import type { FastifyReply } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { HttpApp } from '../../core/http/app.js';
import { InvalidInputError } from '../../core/errors.js';
import type { EntryView } from './entry-view.js';
import { parseStatuses, type CatalogService, type Page } from './service.js';
import { callerOf } from '../identity/caller.js';
import {
  PackageListQuerySchema,
  PackageParams,
  PackageRecordSchema,
  PackageVersionParams,
  RegistryParams,
  ServerListQuerySchema,
  ServerListSchema,
  ServerParams,
  ServerRecordSchema,
  ServerVersionParams,
} from './schemas.js';
import { ListMetadataSchema } from '../http/schemas.js';
import { ErrorSchema, ref } from '../../core/http/schemas.js';

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i;
const errors = { 400: ErrorSchema, 404: ErrorSchema };

/**
 * Records are written into responses as the JSON bytes the read model prepared, so a list costs one
 * copy of those bytes instead of serializing (or even re-encoding) every record; the schemas still
 * describe them for OpenAPI.
 */
function sendJson(reply: FastifyReply, body: Buffer): void {
  void reply.type('application/json; charset=utf-8').send(body);
}

const COMMA = Buffer.from(',');

/**
 * List bodies by the page (or version list) they were written from: while a catalog holds, the service
 * hands out the same page object for the same query, and its body is written once.
 */
function createListBodies(): (key: string, page: Page | EntryView[]) => Buffer {
  const bodies = new WeakMap<Page | EntryView[], { key: string; body: Buffer }>();
  return (key, page) => {
    const known = bodies.get(page);
    if (known?.key === key) return known.body;
    const body = writeListBody(key, page);
    bodies.set(page, { key, body });
    return body;
  };
}

function writeListBody(key: string, page: Page | EntryView[]): Buffer {
  const items = Array.isArray(page) ? page : page.items;
  const metadata = { count: items.length, ...(!Array.isArray(page) && page.nextCursor !== undefined && { nextCursor: page.nextCursor }) };
  const parts: Buffer[] = [Buffer.from(`{"${key}":[`)];
  items.forEach((entry, index) => {
    if (index > 0) parts.push(COMMA);
    parts.push(entry.json);
  });
  parts.push(Buffer.from(`],"metadata":${JSON.stringify(metadata)}}`));
  return Buffer.concat(parts);
}

function parseSince(value: string | undefined): Date | undefined {
  if (value === undefined) return undefined;
  const date = new Date(value);
  if (!RFC3339.test(value) || Number.isNaN(date.getTime())) throw new InvalidInputError(`updated_since: "${value}" is not an RFC 3339 time (example: 2025-01-31T12:00:00Z)`);
  return date;
}

export function registerConsumerRoutes(app: HttpApp, catalog: CatalogService): void {
  const listBody = createListBodies();
  const tags = ['consumer'];
  app.get(
    '/registry/:registryName/v0.1/servers',
    { schema: { tags, summary: 'List servers', params: RegistryParams, querystring: ServerListQuerySchema, response: { 200: ServerListSchema, ...errors } } },
    (request, reply) => {
      const { cursor, limit, search, version, updated_since } = request.query;
      const page = catalog.listServers(callerOf(request), request.params.registryName, { cursor, limit, search, version, updatedSince: parseSince(updated_since) });
      sendJson(reply, listBody('servers', page));
    },
  );
  app.get(
    '/registry/:registryName/v0.1/servers/:serverName/versions',
    { schema: { tags, summary: 'List the versions of a server', params: ServerParams, response: { 200: ServerListSchema, ...errors } } },
    (request, reply) => {
      const { registryName, serverName } = request.params;
      sendJson(reply, listBody('servers', catalog.listServerVersions(callerOf(request), registryName, serverName)));
    },
  );
  app.get(
    '/registry/:registryName/v0.1/servers/:serverName/versions/:version',
    { schema: { tags, summary: 'Get a server version', params: ServerVersionParams, response: { 200: ServerRecordSchema, ...errors } } },
    (request, reply) => {
      const { registryName, serverName, version } = request.params;
      sendJson(reply, catalog.getServerVersion(callerOf(request), registryName, serverName, version).json);
    },
  );
  for (const [type, plural] of [
    ['skill', 'skills'],
    ['plugin', 'plugins'],
  ] as const) {
    const base = `/registry/:registryName/v0.1/x/dev.toolyard/${plural}`;
    const list = Type.Object({ [plural]: Type.Array(ref(PackageRecordSchema)), metadata: ListMetadataSchema });
    app.get(
      base,
      { schema: { tags, summary: `List ${plural} (latest version of each)`, params: RegistryParams, querystring: PackageListQuerySchema, response: { 200: list, ...errors } } },
      (request, reply) => {
        const { cursor, limit, search, status } = request.query;
        const page = catalog.listPackages(callerOf(request), request.params.registryName, type, { cursor, limit, search, statuses: parseStatuses(status) });
        sendJson(reply, listBody(plural, page));
      },
    );
    app.get(
      `${base}/:namespace/:name`,
      { schema: { tags, summary: `Get the latest version of a ${type}`, params: PackageParams, response: { 200: PackageRecordSchema, ...errors } } },
      (request, reply) => {
        const { registryName, namespace, name } = request.params;
        sendJson(reply, catalog.getPackageVersion(callerOf(request), registryName, type, `${namespace}/${name}`, 'latest').json);
      },
    );
    app.get(
      `${base}/:namespace/:name/versions`,
      { schema: { tags, summary: `List the versions of a ${type}`, params: PackageParams, response: { 200: list, ...errors } } },
      (request, reply) => {
        const { registryName, namespace, name } = request.params;
        sendJson(reply, listBody(plural, catalog.listPackageVersions(callerOf(request), registryName, type, `${namespace}/${name}`)));
      },
    );
    app.get(
      `${base}/:namespace/:name/versions/:version`,
      { schema: { tags, summary: `Get a ${type} version`, params: PackageVersionParams, response: { 200: PackageRecordSchema, ...errors } } },
      (request, reply) => {
        const { registryName, namespace, name, version } = request.params;
        sendJson(reply, catalog.getPackageVersion(callerOf(request), registryName, type, `${namespace}/${name}`, version).json);
      },
    );
  }
}
