import { Type } from '@sinclair/typebox';
import type { HttpApp } from '../../core/http/app.js';
import { GroupSchema } from '../http/schemas.js';
import { ErrorSchema, ref } from '../../core/http/schemas.js';
import { API_PREFIX, NameParam } from './routes.js';
import type { GroupService } from './groups.js';
import { Name } from './schemas.js';

const CreateBody = Type.Object({ name: Name }, { additionalProperties: false });
const DeleteQuery = Type.Object({
  'with-workloads': Type.Optional(Type.Boolean({ default: false, description: "delete the group's workloads too, instead of moving them to default" })),
});
const tags = ['groups'];

/** Every workload belongs to one group; `default` exists from the start and cannot be deleted. */
export function registerGroupRoutes(app: HttpApp, groups: GroupService): void {
  app.get(
    `${API_PREFIX}/groups`,
    { schema: { tags, summary: 'List groups', response: { 200: Type.Object({ groups: Type.Array(ref(GroupSchema)) }) } } },
    async () => ({ groups: await groups.list() }),
  );
  app.post(
    `${API_PREFIX}/groups`,
    { schema: { tags, summary: 'Create a group', body: CreateBody, response: { 201: Type.Object({ name: Type.String() }), 400: ErrorSchema, 409: ErrorSchema } } },
    async (request, reply) => reply.code(201).send({ name: (await groups.create(request.body.name)).name }),
  );
  app.get(
    `${API_PREFIX}/groups/:name`,
    { schema: { tags, summary: 'Get a group', params: NameParam, response: { 200: ref(GroupSchema), 400: ErrorSchema, 404: ErrorSchema } } },
    (request) => groups.get(request.params.name),
  );
  app.delete(
    `${API_PREFIX}/groups/:name`,
    {
      schema: {
        tags,
        summary: 'Delete a group, moving its workloads to default unless with-workloads=true',
        params: NameParam,
        querystring: DeleteQuery,
        response: { 204: Type.Null(), 400: ErrorSchema, 404: ErrorSchema },
      },
    },
    async (request, reply) => {
      await groups.remove(request.params.name, { withWorkloads: request.query['with-workloads'] ?? false });
      return reply.code(204).send(null);
    },
  );
}
