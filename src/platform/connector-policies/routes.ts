import type { FastifyReply, FastifyRequest } from 'fastify';
import { PreconditionRequiredError } from '../../core/errors.js';
import type { HttpApp } from '../../core/http/app.js';
import { ErrorSchema, ref } from '../../core/http/schemas.js';
import type { PlatformAccess } from '../identity/access.js';
import { ConnectorPolicySchema, PolicyDocumentBodySchema, PolicyGroupParamsSchema, PolicyGroupsBodySchema, PolicyParamsSchema } from './schemas.js';
import type { ConnectorPolicyService, VersionedPolicy } from './service.js';

const ifMatchOf = (request: FastifyRequest): string | undefined => {
  const value = request.headers['if-match'];
  return Array.isArray(value) ? value.join(',') : value;
};

const withEtag = (reply: FastifyReply, answer: VersionedPolicy) => reply.header('etag', answer.etag).send(answer.policy);

/** `service` is the authorized one (authorizeConnectorPolicies). */
export function registerConnectorPolicyRoutes(app: HttpApp, options: { service: ConnectorPolicyService; access: PlatformAccess }): void {
  const { service, access } = options;
  const tags = ['connector policies'];
  const base = '/v1/connectors/:id/policy';
  const policy = { 200: ref(ConnectorPolicySchema), 400: ErrorSchema, 401: ErrorSchema, 403: ErrorSchema, 404: ErrorSchema };
  const written = { ...policy, 409: ErrorSchema, 412: ErrorSchema };
  const optional = 'If-Match optional (the policy ETag or *; stale: 412 with the current ETag)';

  app.get(
    base,
    { schema: { tags, summary: "Get a connector's policy, with its ETag (connectorAdmin, auditor)", params: PolicyParamsSchema, response: policy } },
    async (request, reply) => withEtag(reply, await service.get(access.actorOf(request), request.params.id)),
  );
  app.put(
    `${base}/groups`,
    {
      schema: {
        tags,
        summary: 'Replace the granted groups of a structured policy; If-Match required (connectorAdmin)',
        params: PolicyParamsSchema,
        body: PolicyGroupsBodySchema,
        response: { ...written, 413: ErrorSchema, 422: ErrorSchema, 428: ErrorSchema },
      },
    },
    async (request, reply) => {
      const ifMatch = ifMatchOf(request);
      if (ifMatch === undefined) throw new PreconditionRequiredError('If-Match: required to replace the granted groups; send the policy ETag from GET /v1/connectors/{id}/policy (or *)');
      return withEtag(reply, await service.replaceGroups(access.actorOf(request), request.params.id, request.body, ifMatch));
    },
  );
  app.delete(
    `${base}/groups/:group_id`,
    { schema: { tags, summary: `Revoke a group's access (structured mode); ${optional} (connectorAdmin)`, params: PolicyGroupParamsSchema, response: written } },
    async (request, reply) => withEtag(reply, await service.revokeGroup(access.actorOf(request), request.params.id, request.params.group_id, ifMatchOf(request))),
  );
  app.put(
    `${base}/document`,
    {
      schema: {
        tags,
        summary: `Set the Cedar document of a policy in document mode; ${optional} (connectorAdmin)`,
        params: PolicyParamsSchema,
        body: PolicyDocumentBodySchema,
        response: { ...written, 413: ErrorSchema, 422: ErrorSchema },
      },
    },
    async (request, reply) => withEtag(reply, await service.setDocument(access.actorOf(request), request.params.id, request.body, ifMatchOf(request))),
  );
  for (const mode of ['document', 'structured'] as const) {
    const effect = mode === 'document' ? 'the document starts as the structured text and the groups freeze' : 'the document is generated from the groups again';
    app.post(
      `${base}/${mode}-mode`,
      { schema: { tags, summary: `Switch the policy to ${mode} mode: ${effect}; the same mode is a no-op; ${optional} (connectorAdmin)`, params: PolicyParamsSchema, response: written } },
      async (request, reply) => withEtag(reply, await service.switchMode(access.actorOf(request), request.params.id, mode, ifMatchOf(request))),
    );
  }
}
