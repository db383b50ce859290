import { Type } from '@sinclair/typebox';
import type { HttpApp } from '../../core/http/app.js';
import { ref } from '../../core/http/schemas.js';
import { adminErrors as errors, metadataOf } from '../http/admin-routes.js';
import { AdminListQuerySchema, ListMetadataSchema, NameParams } from '../http/schemas.js';
import { callerOf } from '../identity/caller.js';
import { RegistryBodySchema, RegistryEntrySchema, RegistrySchema } from './schemas.js';
import type { RegistriesService } from './service.js';

export function registerRegistryRoutes(app: HttpApp, registries: RegistriesService): void {
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
}
