import type { FastifyReply, FastifyRequest } from 'fastify';
import type { HttpApp } from '../../core/http/app.js';
import { ErrorSchema, ref } from '../../core/http/schemas.js';
import type { PlatformAccess } from '../identity/access.js';
import {
  CreateGroupBodySchema,
  GroupChildParamsSchema,
  GroupPageSchema,
  GroupSchema,
  GroupUserParamsSchema,
  IdParamsSchema,
  ListGroupsQuerySchema,
  ListUsersQuerySchema,
  MembersQuerySchema,
  MembersSchema,
  PageQuerySchema,
  PatchGroupBodySchema,
  UserPageSchema,
  UserSchema,
} from './schemas.js';
import type { DirectoryService, VersionedGroup } from './service.js';

const errors = { 400: ErrorSchema, 401: ErrorSchema, 403: ErrorSchema, 404: ErrorSchema };
const writeErrors = { ...errors, 409: ErrorSchema };

const header = (request: FastifyRequest, name: string): string | undefined => {
  const value = request.headers[name];
  return Array.isArray(value) ? value.join(',') : value;
};

const withEtag = (reply: FastifyReply, answer: VersionedGroup) => reply.header('etag', answer.etag).send(answer.group);

/** `service` is the authorized directory (authorizeDirectory). */
export function registerDirectoryRoutes(app: HttpApp, options: { service: DirectoryService; access: PlatformAccess }): void {
  const { service, access } = options;
  const groups = ['directory: groups'];
  const users = ['directory: users'];

  app.post(
    '/v1/groups',
    { schema: { tags: groups, summary: 'Create a group (directoryAdmin)', body: CreateGroupBodySchema, response: { 201: ref(GroupSchema), ...writeErrors } } },
    async (request, reply) => withEtag(reply.code(201), await service.createGroup(access.actorOf(request), request.body)),
  );
  app.get(
    '/v1/groups',
    { schema: { tags: groups, summary: 'List groups by name then id', querystring: ListGroupsQuerySchema, response: { 200: GroupPageSchema, ...errors } } },
    (request) => service.listGroups(access.actorOf(request), request.query),
  );
  app.get(
    '/v1/groups/:id',
    { schema: { tags: groups, summary: 'Get a group (with its ETag)', params: IdParamsSchema, response: { 200: ref(GroupSchema), ...errors } } },
    async (request, reply) => withEtag(reply, await service.getGroup(access.actorOf(request), request.params.id)),
  );
  app.patch(
    '/v1/groups/:id',
    {
      schema: {
        tags: groups,
        summary: 'Change a group (directoryAdmin; If-Match optional)',
        params: IdParamsSchema,
        body: PatchGroupBodySchema,
        response: { 200: ref(GroupSchema), ...writeErrors, 412: ErrorSchema },
      },
    },
    async (request, reply) => withEtag(reply, await service.patchGroup(access.actorOf(request), request.params.id, request.body, header(request, 'if-match'))),
  );
  app.get(
    '/v1/groups/:id/members',
    {
      schema: {
        tags: groups,
        summary: 'Direct child groups and transitive users, each paged on its own',
        params: IdParamsSchema,
        querystring: MembersQuerySchema,
        response: { 200: MembersSchema, ...errors },
      },
    },
    (request) => service.members(access.actorOf(request), request.params.id, request.query),
  );
  for (const [segment, type, params] of [
    ['subgroups', 'group', 'child_id'],
    ['users', 'user', 'user_id'],
  ] as const) {
    const schema = {
      tags: groups,
      params: type === 'group' ? GroupChildParamsSchema : GroupUserParamsSchema,
      response: { 200: ref(GroupSchema), ...writeErrors },
    };
    const memberOf = (request: FastifyRequest) => {
      const path = request.params as Record<string, string>;
      return { groupId: path.group_id ?? '', memberId: path[params] ?? '' };
    };
    app.post(`/v1/groups/:group_id/${segment}/:${params}`, { schema: { ...schema, summary: `Add a ${type} as a direct member (directoryAdmin)` } }, async (request, reply) => {
      const { groupId, memberId } = memberOf(request);
      return withEtag(reply, await service.addMember(access.actorOf(request), groupId, type, memberId));
    });
    app.delete(`/v1/groups/:group_id/${segment}/:${params}`, { schema: { ...schema, summary: `Remove a direct ${type} member (directoryAdmin)` } }, async (request, reply) => {
      const { groupId, memberId } = memberOf(request);
      return withEtag(reply, await service.removeMember(access.actorOf(request), groupId, type, memberId));
    });
  }

  app.get(
    '/v1/users',
    { schema: { tags: users, summary: 'List users by user_name then id', querystring: ListUsersQuerySchema, response: { 200: UserPageSchema, ...errors } } },
    (request) => service.listUsers(access.actorOf(request), request.query),
  );
  app.get(
    '/v1/users/:id',
    { schema: { tags: users, summary: 'Get a user', params: IdParamsSchema, response: { 200: ref(UserSchema), ...errors } } },
    (request) => service.getUser(access.actorOf(request), request.params.id),
  );
  app.get(
    '/v1/users/:id/groups',
    {
      schema: {
        tags: users,
        summary: "A user's groups, direct and through nesting, by name then id",
        params: IdParamsSchema,
        querystring: PageQuerySchema,
        response: { 200: GroupPageSchema, ...errors },
      },
    },
    (request) => service.groupsOfUser(access.actorOf(request), request.params.id, request.query),
  );
}
