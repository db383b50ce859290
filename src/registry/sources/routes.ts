import { Type } from '@sinclair/typebox';
import type { Caller } from '../../core/auth/caller.js';
import type { HttpApp } from '../../core/http/app.js';
import { UnauthenticatedError } from '../../core/errors.js';
import type { EntriesService } from '../entries/service.js';
import type { RegistriesService } from '../registries/service.js';
import type { SourcesService } from './service.js';
import { SourceDefinitionSchema } from './definition.js';
import { callerOf } from '../identity/caller.js';
import type { Page } from '../http/paging.js';
import {
  AdminListQuerySchema,
  ClaimsBodySchema,
  ListMetadataSchema,
  EntryParams,
  EntryVersionParams,
  NameParams,
  PublishBodySchema,
  RegistryBodySchema,
  RegistryEntrySchema,
  RegistrySchema,
  SourceEntrySchema,
  SourceSchema,
} from '../catalog/schemas.js';
import { ErrorSchema, ref } from '../../core/http/schemas.js';
import { ClaimsSchema } from '../config.js';

export interface AdminServices {
  sources: SourcesService;
  registries: RegistriesService;
  entries: EntriesService;
  /** Who the caller is, for /v1/me; undefined in anonymous mode. */
  identity?: (caller: Caller) => { subject: string; roles: string[] };
}

const errors = { 400: ErrorSchema, 401: ErrorSchema, 403: ErrorSchema, 404: ErrorSchema, 409: ErrorSchema };
const Message = Type.Object({ message: Type.String() });
const Empty = Type.Object({});

function metadataOf(page: Page<unknown>): { count: number; nextCursor?: string } {
  return { count: page.items.length, ...(page.nextCursor !== undefined && { nextCursor: page.nextCursor }) };
}

export function registerAdminRoutes(app: HttpApp, services: AdminServices): void {
  const { sources, registries, entries } = services;

  app.get(
    '/v1/sources',
    { schema: { tags: ['sources'], summary: 'List sources', querystring: AdminListQuerySchema, response: { 200: Type.Object({ sources: Type.Array(ref(SourceSchema)), metadata: ListMetadataSchema }), ...errors } } },
    async (request) => {
      const page = await sources.list(callerOf(request), request.query);
      return { sources: page.items, metadata: metadataOf(page) };
    },
  );
  app.get('/v1/sources/:name', { schema: { tags: ['sources'], summary: 'Get a source', params: NameParams, response: { 200: ref(SourceSchema), ...errors } } }, (request) =>
    sources.get(callerOf(request), request.params.name),
  );
  app.put(
    '/v1/sources/:name',
    {
      schema: {
        tags: ['sources'],
        summary: 'Create (201) or replace (200) a source',
        params: NameParams,
        body: SourceDefinitionSchema,
        response: { 200: ref(SourceSchema), 201: ref(SourceSchema), ...errors },
      },
    },
    async (request, reply) => {
      const { source, created } = await sources.put(callerOf(request), request.params.name, request.body);
      return reply.code(created ? 201 : 200).send(source);
    },
  );
  app.delete('/v1/sources/:name', { schema: { tags: ['sources'], summary: 'Delete a source', params: NameParams, response: { 204: Type.Null(), ...errors } } }, async (request, reply) => {
    await sources.delete(callerOf(request), request.params.name);
    return reply.code(204).send(null);
  });
  app.get(
    '/v1/sources/:name/entries',
    {
      schema: {
        tags: ['sources'],
        summary: 'List the entries of a source (a page holds whole entries, each with all its versions)',
        params: NameParams,
        querystring: AdminListQuerySchema,
        response: { 200: Type.Object({ entries: Type.Array(SourceEntrySchema), metadata: ListMetadataSchema }), ...errors },
      },
    },
    async (request) => {
      const page = await sources.entries(callerOf(request), request.params.name, request.query);
      return { entries: page.items, metadata: metadataOf(page) };
    },
  );
  app.post(
    '/v1/sources/:name/sync',
    { schema: { tags: ['sources'], summary: 'Ask for an immediate sync', params: NameParams, response: { 202: Message, ...errors } } },
    async (request, reply) => {
      await sources.requestSync(callerOf(request), request.params.name);
      return reply.code(202).send({ message: `sync of source "${request.params.name}" requested` });
    },
  );

  app.get(
    '/v1/registries',
    { schema: { tags: ['registries'], summary: 'List registries', querystring: AdminListQuerySchema, response: { 200: Type.Object({ registries: Type.Array(ref(RegistrySchema)), metadata: ListMetadataSchema }), ...errors } } },
    async (request) => {
      const page = await registries.list(callerOf(request), request.query);
      return { registries: page.items, metadata: metadataOf(page) };
    },
  );
  app.get('/v1/registries/:name', { schema: { tags: ['registries'], summary: 'Get a registry', params: NameParams, response: { 200: ref(RegistrySchema), ...errors } } }, (request) =>
    registries.get(callerOf(request), request.params.name),
  );
  app.put(
    '/v1/registries/:name',
    {
      schema: {
        tags: ['registries'],
        summary: 'Create (201) or replace (200) a registry',
        params: NameParams,
        body: RegistryBodySchema,
        response: { 200: ref(RegistrySchema), 201: ref(RegistrySchema), ...errors },
      },
    },
    async (request, reply) => {
      const { registry, created } = await registries.put(callerOf(request), request.params.name, request.body);
      return reply.code(created ? 201 : 200).send(registry);
    },
  );
  app.delete('/v1/registries/:name', { schema: { tags: ['registries'], summary: 'Delete a registry', params: NameParams, response: { 204: Type.Null(), ...errors } } }, async (request, reply) => {
    await registries.delete(callerOf(request), request.params.name);
    return reply.code(204).send(null);
  });
  app.get(
    '/v1/registries/:name/entries',
    {
      schema: {
        tags: ['registries'],
        summary: 'List every entry of every source of a registry, shadowed ones included',
        params: NameParams,
        querystring: AdminListQuerySchema,
        response: { 200: Type.Object({ entries: Type.Array(RegistryEntrySchema), metadata: ListMetadataSchema }), ...errors },
      },
    },
    async (request) => {
      const page = await registries.entries(callerOf(request), request.params.name, request.query);
      return { entries: page.items, metadata: metadataOf(page) };
    },
  );

  app.post('/v1/entries', { schema: { tags: ['entries'], summary: 'Publish an entry version to the managed source', body: PublishBodySchema, response: { 201: Empty, ...errors } } }, async (request, reply) => {
    await entries.publish(callerOf(request), request.body);
    return reply.code(201).send({});
  });
  app.delete(
    '/v1/entries/:type/:name/versions/:version',
    { schema: { tags: ['entries'], summary: 'Delete a published version', params: EntryVersionParams, response: { 204: Type.Null(), ...errors } } },
    async (request, reply) => {
      const { type, name, version } = request.params;
      await entries.deleteVersion(callerOf(request), type, name, version);
      return reply.code(204).send(null);
    },
  );
  app.get(
    '/v1/entries/:type/:name/claims',
    { schema: { tags: ['entries'], summary: 'Get the claims of a published entry', params: EntryParams, response: { 200: Type.Object({ claims: ClaimsSchema }), ...errors } } },
    async (request) => ({ claims: await entries.getClaims(callerOf(request), request.params.type, request.params.name) }),
  );
  app.put(
    '/v1/entries/:type/:name/claims',
    { schema: { tags: ['entries'], summary: 'Replace the claims of a published entry', params: EntryParams, body: ClaimsBodySchema, response: { 204: Type.Null(), ...errors } } },
    async (request, reply) => {
      await entries.putClaims(callerOf(request), request.params.type, request.params.name, request.body.claims);
      return reply.code(204).send(null);
    },
  );

  app.get(
    '/v1/me',
    { schema: { tags: ['identity'], summary: 'Who the caller is', response: { 200: Type.Object({ subject: Type.String(), roles: Type.Array(Type.String()) }), ...errors } } },
    (request) => {
      if (!services.identity) throw new UnauthenticatedError('the registry runs in anonymous mode: there is no caller identity');
      return services.identity(callerOf(request));
    },
  );
}
