import type { FastifyInstance } from 'fastify';
import type { PlatformAccess } from '../identity/access.js';
import { AiModelListSchema, CallerIdentitySchema, GatewayIdentitySchema, McpServerListSchema } from './schemas.js';
import type { AiGatewayService } from './service.js';

/** Gateway identity, MCP servers, models and caller identity, in the AI gateway management scope (its errors, its rate limit). */
export function registerAiGatewayIntrospectionRoutes(scope: FastifyInstance, options: { service: AiGatewayService; access: PlatformAccess; gateway: { name: string; namespace: string } }): void {
  const { service, access, gateway } = options;
  const tags = ['AI gateway management'];
  scope.get(
    '/v1/gateway',
    { config: { aiUnlimited: true }, schema: { tags, summary: 'The gateway and namespace this server manages (any valid token); never 429', response: { 200: GatewayIdentitySchema } } },
    () => ({ name: gateway.name, namespace: gateway.namespace }),
  );
  scope.get(
    '/v1/mcp-servers',
    { schema: { tags, summary: 'MCP servers of the gateway: always empty in this version (any valid token)', response: { 200: McpServerListSchema } } },
    () => ({ items: [] }),
  );
  scope.get(
    '/v1/models',
    { schema: { tags, summary: "The models the caller's matching AI policies allow, sorted by id (own)", response: { 200: AiModelListSchema } } },
    (request) => service.models(access.actorOf(request)),
  );
  scope.get(
    '/v1/whoami',
    { schema: { tags, summary: 'The caller: subject, email, groups, roles, the AI policies it matches and the models they allow (own)', response: { 200: CallerIdentitySchema } } },
    (request) => service.whoami(access.actorOf(request)),
  );
}
