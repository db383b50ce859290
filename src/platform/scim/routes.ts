import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { HttpApp } from '../../core/http/app.js';
import { parseJsonBody } from '../../core/http/framework-errors.js';
import type { PlatformConfig } from '../config.js';
import type { Actor } from '../identity/actor.js';
import { publicBaseUrl } from '../identity/authentication.js';
import { resourceTypes, schemaDocuments, SCHEMAS, serviceProviderConfig } from './discovery.js';
import { SCIM_CONTENT_TYPE, ScimError, scimErrorBody, sendScimError } from './errors.js';
import type { ResourceKind } from './filter.js';
import { project, type Resource } from './mapping.js';
import type { Provisioner } from './provisioners.js';
import type { ScimScope, ScimService } from './service.js';

export interface ScimRouteOptions {
  service: ScimService;
  provisioners: ReadonlyMap<string, Provisioner>;
  config: PlatformConfig;
}

const ListQuerySchema = Type.Object(
  {
    filter: Type.Optional(Type.String()),
    startIndex: Type.Optional(Type.Integer({ description: '1-based; below 1 is 1' })),
    count: Type.Optional(Type.Integer({ description: 'default 100, at most 1000; 0 gives the total only' })),
    attributes: Type.Optional(Type.String({ description: 'comma-separated attribute names to return' })),
    excludedAttributes: Type.Optional(Type.String({ description: 'comma-separated attribute names to leave out' })),
  },
  { additionalProperties: true, description: 'sortBy and sortOrder are accepted and ignored' },
);
const ProjectionQuerySchema = Type.Object(
  { attributes: Type.Optional(Type.String()), excludedAttributes: Type.Optional(Type.String()) },
  { additionalProperties: true },
);
const ResourceBodySchema = Type.Object({}, { additionalProperties: true, description: 'a SCIM resource (RFC 7643)' });
const PatchBodySchema = Type.Object({}, { additionalProperties: true, description: 'a SCIM PatchOp (RFC 7644 §3.5.2)' });
const IdParams = Type.Object({ provisioner: Type.String(), id: Type.String() });
const ProvisionerParams = Type.Object({ provisioner: Type.String() });
const ScimResponse = Type.Object({}, { additionalProperties: true, description: 'application/scim+json' });

const list = (value: string | undefined) => value?.split(',').map((name) => name.trim()).filter((name) => name !== '');
const header = (request: FastifyRequest, name: string): string | undefined => {
  const value = request.headers[name];
  return Array.isArray(value) ? value.join(',') : value;
};

/** SCIM 2.0 (RFC 7644) under /scim/v2/{provisioner}: its own bearer token, its own error bodies. */
export async function registerScimRoutes(app: HttpApp, options: ScimRouteOptions): Promise<void> {
  const { service, provisioners, config } = options;
  await app.register(
    (instance, _opts, done) => {
      const scim = instance.withTypeProvider<TypeBoxTypeProvider>();
      scim.addContentTypeParser(['application/scim+json'], { parseAs: 'string' }, parseJsonBody);
      scim.setErrorHandler(sendScimError);
      scim.setNotFoundHandler((request, reply) => reply.code(404).type(SCIM_CONTENT_TYPE).send(scimErrorBody(404, `no SCIM endpoint ${request.method} ${request.url.split('?')[0] ?? ''}`)));
      scim.addHook('onRequest', (request, reply, next) => {
        const name = (request.params as { provisioner?: string }).provisioner ?? '';
        const provisioner = provisioners.get(name);
        if (!provisioner) {
          void reply.code(404).type(SCIM_CONTENT_TYPE).send(scimErrorBody(404, `no SCIM provisioner named "${name}"`));
          return;
        }
        const authorization = header(request, 'authorization') ?? '';
        const match = /^Bearer\s+(.+)$/i.exec(authorization.trim());
        if (!match?.[1] || !provisioner.accepts(match[1])) {
          void reply.code(401).header('www-authenticate', 'Bearer realm="scim"').type(SCIM_CONTENT_TYPE).send(scimErrorBody(401, 'a valid bearer token of this provisioner is required'));
          return;
        }
        next();
      });
      scim.addHook('onSend', (_request, reply, payload, next) => {
        if (String(reply.getHeader('content-type') ?? '').startsWith('application/json')) void reply.type(SCIM_CONTENT_TYPE);
        next(null, payload);
      });

      const scopeOf = (request: FastifyRequest): ScimScope => {
        const name = (request.params as { provisioner: string }).provisioner;
        const provisioner = provisioners.get(name);
        if (!provisioner) throw new ScimError(404, `no SCIM provisioner named "${name}"`);
        const actor: Actor = { kind: 'scim', issuer: null, subject: provisioner.source, claims: {}, provider: null, roles: new Set(), requestId: request.id };
        return { provisioner, actor, base: `${publicBaseUrl(config, request)}/scim/v2/${name}` };
      };
      const send = (reply: FastifyReply, resource: Resource, query: { attributes?: string; excludedAttributes?: string }) => {
        const meta = resource.meta as { version?: string } | undefined;
        if (meta?.version !== undefined) void reply.header('etag', meta.version);
        return reply.send(project(resource, list(query.attributes), list(query.excludedAttributes)));
      };

      for (const kind of ['User', 'Group'] as const satisfies ResourceKind[]) {
        const path = `/${kind}s`;
        const tags = ['scim'];
        scim.get(path, { schema: { tags, summary: `List or filter ${kind}s`, params: ProvisionerParams, querystring: ListQuerySchema, response: { 200: ScimResponse } } }, async (request) => {
          const query = request.query;
          const result = await service.list(scopeOf(request), kind, query);
          const resources = result.resources.map((resource) => project(resource, list(query.attributes), list(query.excludedAttributes)));
          return { schemas: [SCHEMAS.listResponse], totalResults: result.totalResults, startIndex: result.startIndex, itemsPerPage: resources.length, Resources: resources };
        });
        scim.post(path, { schema: { tags, summary: `Create a ${kind}`, params: ProvisionerParams, querystring: ProjectionQuerySchema, body: ResourceBodySchema, response: { 201: ScimResponse } } }, async (request, reply) => {
          const resource = await service.create(scopeOf(request), kind, request.body);
          void reply.code(201).header('location', (resource.meta as { location: string }).location);
          return send(reply, resource, request.query);
        });
        scim.get(`${path}/:id`, { schema: { tags, summary: `Get a ${kind}`, params: IdParams, querystring: ProjectionQuerySchema, response: { 200: ScimResponse } } }, async (request, reply) =>
          send(reply, await service.get(scopeOf(request), kind, request.params.id), request.query),
        );
        scim.put(`${path}/:id`, { schema: { tags, summary: `Replace a ${kind} (omitted attributes are cleared)`, params: IdParams, querystring: ProjectionQuerySchema, body: ResourceBodySchema, response: { 200: ScimResponse } } }, async (request, reply) =>
          send(reply, await service.replace(scopeOf(request), kind, request.params.id, request.body, header(request, 'if-match')), request.query),
        );
        scim.patch(`${path}/:id`, { schema: { tags, summary: `Patch a ${kind}`, params: IdParams, querystring: ProjectionQuerySchema, body: PatchBodySchema, response: { 200: ScimResponse } } }, async (request, reply) =>
          send(reply, await service.patch(scopeOf(request), kind, request.params.id, request.body, header(request, 'if-match')), request.query),
        );
        scim.delete(`${path}/:id`, { schema: { tags, summary: `Delete a ${kind}`, params: IdParams, response: { 204: Type.Null() } } }, async (request, reply) => {
          await service.remove(scopeOf(request), kind, request.params.id, header(request, 'if-match'));
          return reply.code(204).send(null);
        });
        scim.post(`${path}/.search`, { schema: { tags, summary: 'Not supported', params: ProvisionerParams } }, notImplemented('POST .search'));
      }

      const base = (request: FastifyRequest) => scopeOf(request).base;
      scim.get('/ServiceProviderConfig', { schema: { tags: ['scim'], summary: 'What this service provider supports', params: ProvisionerParams } }, (request) => serviceProviderConfig(base(request)));
      scim.get('/ResourceTypes', { schema: { tags: ['scim'], summary: 'The resource types', params: ProvisionerParams } }, (request) => listOf(resourceTypes(base(request))));
      scim.get('/ResourceTypes/:id', { schema: { tags: ['scim'], summary: 'One resource type', params: IdParams } }, (request) => one(resourceTypes(base(request)), request.params.id, 'resource type'));
      scim.get('/Schemas', { schema: { tags: ['scim'], summary: 'The schemas', params: ProvisionerParams } }, (request) => listOf(schemaDocuments(base(request))));
      scim.get('/Schemas/:id', { schema: { tags: ['scim'], summary: 'One schema', params: IdParams } }, (request) => one(schemaDocuments(base(request)), request.params.id, 'schema'));
      scim.post('/Bulk', { schema: { tags: ['scim'], summary: 'Not supported', params: ProvisionerParams } }, notImplemented('Bulk'));
      scim.post('/.search', { schema: { tags: ['scim'], summary: 'Not supported', params: ProvisionerParams } }, notImplemented('POST .search'));
      scim.route({ method: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'], url: '/Me', schema: { tags: ['scim'], summary: 'Not supported', params: ProvisionerParams }, handler: notImplemented('/Me') });
      done();
    },
    { prefix: '/scim/v2/:provisioner' },
  );
}

const notImplemented = (what: string) => (): never => {
  throw new ScimError(501, `${what} is not supported by this service provider (see ServiceProviderConfig)`);
};

const listOf = (resources: Record<string, unknown>[]) => ({ schemas: [SCHEMAS.listResponse], totalResults: resources.length, startIndex: 1, itemsPerPage: resources.length, Resources: resources });

function one(resources: Record<string, unknown>[], id: string, what: string): Record<string, unknown> {
  const found = resources.find((resource) => resource.id === id);
  if (!found) throw new ScimError(404, `no ${what} "${id}"`);
  return found;
}
