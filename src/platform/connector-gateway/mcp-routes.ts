import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { HttpApp } from '../../core/http/app.js';
import { ErrorSchema } from '../../core/http/schemas.js';
import { ProtectedResourceMetadataSchema } from '../client-config/schemas.js';
import type { PlatformConfig } from '../config.js';
import { mcpPathOf, type Gateways } from '../gateways/index.js';
import { publicBaseUrl } from '../identity/authentication.js';
import type { AuthenticationHook, MetadataUrl } from './authentication.js';
import type { McpEndpoint } from './mcp.js';
import { RPC, rpcAnswer } from './rpc.js';
import { callerOf } from './routes.js';
import { GatewayIdParamsSchema } from './schemas.js';

const METADATA_PREFIX = '/.well-known/oauth-protected-resource';

/** Where a 401 of the MCP endpoint points: its path-inserted RFC 9728 document (MCP clients ask for it first). */
export const mcpMetadataUrl = (config: PlatformConfig): MetadataUrl => (request) => {
  const gatewayId = (request.params as { gateway_id?: string } | undefined)?.gateway_id ?? '';
  return `${publicBaseUrl(config, request)}${METADATA_PREFIX}${mcpPathOf(encodeURIComponent(gatewayId))}`;
};

export interface McpRouteOptions {
  endpoint: McpEndpoint;
  authenticate: AuthenticationHook;
  gateways: Gateways;
  config: PlatformConfig;
}

/**
 * The gateway's MCP endpoint (PLATFORM-API Part 4 §7): Streamable HTTP without sessions, so POST only
 * (GET and DELETE → 405), and each gateway's RFC 9728 document at the path-inserted well-known URL.
 */
export async function registerMcpRoutes(http: HttpApp, options: McpRouteOptions): Promise<void> {
  const { endpoint, authenticate, gateways, config } = options;
  const tags = ['connector gateway'];
  const path = '/connector-gateway/v1/gateways/:gateway_id/mcp';
  const known = (gatewayId: string) => gateways.list().some((gateway) => gateway.id === gatewayId);
  const oauth = config.auth.mode === 'oauth' ? config.auth.oauth : undefined;

  await http.register((scope: FastifyInstance, _options, done) => {
    // the body is read as text and parsed here: a message that is not JSON gets a JSON-RPC parse error
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'string' }, (_request: FastifyRequest, body: string, parsed: (error: Error | null, value?: unknown) => void) => parsed(null, body));
    scope.post(
      path,
      {
        onRequest: authenticate,
        schema: {
          tags,
          summary: "The gateway's MCP endpoint (Streamable HTTP, stateless, tools only): the tools of the connectors visible and enabled for you, as <prefix>__<tool>",
          params: GatewayIdParamsSchema,
          response: {
            200: { type: 'object', additionalProperties: true, description: 'the JSON-RPC answer' },
            202: { type: 'null', description: 'a notification, acknowledged' },
            400: { type: 'object', additionalProperties: true, description: 'a JSON-RPC error: the body is not one JSON-RPC message' },
            401: ErrorSchema,
            404: ErrorSchema,
          },
        },
      },
      async (request, reply) => {
        const { gateway_id: gatewayId } = request.params as { gateway_id: string };
        if (!known(gatewayId)) return reply.code(404).send({ error: `gateway_id: no connector gateway "${gatewayId}" is configured` });
        let message: unknown;
        try {
          message = JSON.parse(typeof request.body === 'string' ? request.body : '');
        } catch {
          return reply.code(400).type('application/json').send(rpcAnswer(null, { error: { code: RPC.parseError, message: 'parse error: the body is not JSON' } }));
        }
        const answer = await endpoint.handle(callerOf(request), gatewayId, message);
        if (answer.status === 202) return reply.code(202).send();
        return reply.code(answer.status).type('application/json').send(JSON.stringify(answer.body));
      },
    );
    for (const method of ['GET', 'DELETE'] as const) {
      scope.route({
        method,
        url: path,
        schema: { tags, summary: 'Not served: the endpoint keeps no sessions and opens no server-sent event stream (405)', params: GatewayIdParamsSchema, response: { 405: ErrorSchema } },
        handler: (_request, reply) => reply.code(405).header('allow', 'POST').send({ error: `${method} is not served: this MCP endpoint is stateless Streamable HTTP; POST each JSON-RPC message` }),
      });
    }
    done();
  });

  http.get(
    `${METADATA_PREFIX}/connector-gateway/v1/gateways/:gateway_id/mcp`,
    {
      schema: {
        tags: ['public'],
        summary: "OAuth protected resource metadata (RFC 9728) of a gateway's MCP endpoint",
        params: GatewayIdParamsSchema,
        response: { 200: ProtectedResourceMetadataSchema, 404: ErrorSchema },
      },
    },
    async (request, reply) => {
      const gatewayId = request.params.gateway_id;
      if (!known(gatewayId)) return reply.code(404).send({ error: `gateway_id: no connector gateway "${gatewayId}" is configured` });
      const base = publicBaseUrl(config, request);
      return {
        resource: `${base}${mcpPathOf(gatewayId)}`,
        authorization_servers: oauth?.providers.map((provider) => provider.issuerUrl) ?? [],
        bearer_methods_supported: ['header'],
        jwks_uri: `${base}/.well-known/jwks.json`,
        scopes_supported: oauth?.scopesSupported ?? [],
      };
    },
  );
}
