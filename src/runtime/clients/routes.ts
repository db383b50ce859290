import { Type } from '@sinclair/typebox';
import type { HttpApp } from '../../core/http/app.js';
import { ErrorSchema } from '../../core/http/schemas.js';
import { Name } from '../workloads/schemas.js';
import { CLIENT_TYPES } from './catalog.js';
import { ClientRegistration, ClientStatus } from './schemas.js';
import type { ClientService } from './service.js';

const API_PREFIX = '/api/v1beta';

const ClientName = Type.String({ minLength: 1, description: `a client type: ${CLIENT_TYPES.join(', ')}` });
const Groups = Type.Array(Name, { description: 'the groups whose running workloads the client gets (default: default)' });
const RegisterBody = Type.Object({ name: ClientName, groups: Type.Optional(Groups) }, { additionalProperties: false });
const ManyBody = Type.Object({ names: Type.Array(ClientName, { minItems: 1 }), groups: Type.Optional(Groups) }, { additionalProperties: false });
const NameParam = Type.Object({ name: ClientName });
const GroupParams = Type.Object({ name: ClientName, group: Name });
const NoContent = Type.Null({ description: 'done' });
const errors = { 400: ErrorSchema, 404: ErrorSchema };
const tags = ['clients'];

export interface ClientRouteDeps {
  clients: ClientService;
}

/** Client applications: which are on this machine, and which get the running workloads of which groups. */
export function registerClientRoutes(app: HttpApp, { clients }: ClientRouteDeps): void {
  app.get(
    `${API_PREFIX}/discovery/clients`,
    { schema: { tags, summary: 'List the supported clients: installed, registered, and what they support', response: { 200: Type.Object({ clients: Type.Array(ClientStatus) }) } } },
    async () => ({ clients: await clients.discover() }),
  );
  app.get(
    `${API_PREFIX}/clients`,
    { schema: { tags, summary: 'List registered clients with their groups', response: { 200: Type.Array(ClientRegistration) } } },
    () => clients.list(),
  );
  app.post(
    `${API_PREFIX}/clients`,
    { schema: { tags, summary: "Register a client: the running workloads of its groups are written into its configuration", body: RegisterBody, response: { 200: ClientRegistration, ...errors } } },
    (request) => clients.register(request.body.name, request.body.groups),
  );
  app.post(
    `${API_PREFIX}/clients/register`,
    { schema: { tags, summary: 'Register several clients', body: ManyBody, response: { 200: Type.Array(ClientRegistration), ...errors } } },
    (request) => clients.registerMany(request.body.names, request.body.groups),
  );
  app.post(
    `${API_PREFIX}/clients/unregister`,
    { schema: { tags, summary: 'Unregister clients from the given groups, or from all', body: ManyBody, response: { 204: NoContent, ...errors } } },
    async (request, reply) => {
      await clients.unregister(request.body.names, request.body.groups);
      return reply.code(204).send(null);
    },
  );
  app.delete(
    `${API_PREFIX}/clients/:name`,
    { schema: { tags, summary: 'Unregister a client from every group, removing the entries Toolyard wrote', params: NameParam, response: { 204: NoContent, ...errors } } },
    async (request, reply) => {
      await clients.unregister([request.params.name]);
      return reply.code(204).send(null);
    },
  );
  app.delete(
    `${API_PREFIX}/clients/:name/groups/:group`,
    { schema: { tags, summary: 'Take a client out of one group', params: GroupParams, response: { 204: NoContent, ...errors } } },
    async (request, reply) => {
      await clients.removeFromGroup(request.params.name, request.params.group);
      return reply.code(204).send(null);
    },
  );
}
