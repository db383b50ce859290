import { Type } from '@sinclair/typebox';
import type { HttpApp } from '../../core/http/app.js';
import { ClaimsSchema } from '../config.js';
import { adminErrors as errors } from '../http/admin-routes.js';
import { callerOf } from '../identity/caller.js';
import { ClaimsBodySchema, EntryParams, EntryVersionParams, PublishBodySchema } from './schemas.js';
import type { EntriesService } from './service.js';

const Empty = Type.Object({});

export function registerEntryRoutes(app: HttpApp, entries: EntriesService): void {
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
}
