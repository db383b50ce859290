import { Type } from '@sinclair/typebox';
import type { HttpApp } from '../../core/http/app.js';
import { ref } from '../../core/http/schemas.js';
import { adminErrors as errors, metadataOf } from '../http/admin-routes.js';
import { AdminListQuerySchema, ListMetadataSchema, NameParams } from '../http/schemas.js';
import { callerOf } from '../identity/caller.js';
import { SourceDefinitionSchema } from './definition.js';
import { SourceEntrySchema, SourceSchema } from './schemas.js';
import type { SourcesService } from './service.js';

const Message = Type.Object({ message: Type.String() });

export function registerSourceRoutes(app: HttpApp, sources: SourcesService): void {
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
}
