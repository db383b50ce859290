import type { FastifyRequest } from 'fastify';
import type { Counter } from 'prom-client';
import type { HttpApp } from '../../core/http/app.js';
import { ErrorSchema, ref } from '../../core/http/schemas.js';
import type { PlatformConfig } from '../config.js';
import type { PlatformAccess } from '../identity/access.js';
import { publicBaseUrl } from '../identity/authentication.js';
import { JwksSchema } from '../signing/schemas.js';
import { DirectivesBodySchema, DirectivesSchema, DiscoverySchema, EnvelopeSchema, ProtectedResourceMetadataSchema } from './schemas.js';
import type { ClientConfigService } from './service.js';

export interface ClientConfigRouteOptions {
  service: ClientConfigService;
  access: PlatformAccess;
  config: PlatformConfig;
  /** Envelope requests by client type and version. */
  requests: Counter<'client_type' | 'client_version'>;
}

const header = (request: FastifyRequest, name: string): string | undefined => {
  const value = request.headers[name];
  return Array.isArray(value) ? value.join(',') : value;
};

export function registerClientConfigRoutes(app: HttpApp, options: ClientConfigRouteOptions): void {
  const { service, access, config } = options;
  const tags = ['configuration'];
  const oauth = config.auth.mode === 'oauth' ? config.auth.oauth : undefined;
  const base = (request: FastifyRequest) => publicBaseUrl(config, request);

  app.get(
    '/v1/configuration',
    {
      schema: {
        tags,
        summary: 'The signed enterprise configuration envelope (public)',
        response: { 200: ref(EnvelopeSchema), 304: { type: 'null', description: 'If-None-Match matched' }, 400: ErrorSchema, 503: ErrorSchema },
      },
    },
    async (request, reply) => {
      const clientType = header(request, 'x-client-type');
      const clientVersion = header(request, 'x-client-version');
      const answer = await service.envelope({ clientType, clientVersion, ifNoneMatch: header(request, 'if-none-match') });
      request.log.info({ clientType, clientVersion, status: answer.status }, 'configuration requested');
      options.requests.inc({ client_type: clientType ?? '', client_version: clientVersion ?? '' });
      void reply.header('etag', answer.etag).header('cache-control', 'no-cache');
      if (answer.status === 304) return reply.code(304).send();
      return reply.type('application/json').send(answer.body);
    },
  );

  app.get(
    '/v1/configuration/directives',
    { schema: { tags, summary: 'The configuration directives (admin, auditor)', response: { 200: ref(DirectivesSchema), 401: ErrorSchema, 403: ErrorSchema } } },
    async (request, reply) => {
      const { directives, etag } = await service.getDirectives(access.actorOf(request));
      return reply.header('etag', etag).send(directives);
    },
  );

  app.put(
    '/v1/configuration/directives',
    {
      schema: {
        tags,
        summary: 'Replace the configuration directives (admin; If-Match required)',
        body: DirectivesBodySchema,
        response: { 200: ref(DirectivesSchema), 400: ErrorSchema, 401: ErrorSchema, 403: ErrorSchema, 412: ErrorSchema, 428: ErrorSchema },
      },
    },
    async (request, reply) => {
      const { directives, etag } = await service.putDirectives(access.actorOf(request), request.body, header(request, 'if-match'));
      return reply.header('etag', etag).send(directives);
    },
  );

  app.get(
    '/.well-known/oauth-protected-resource',
    { schema: { tags: ['public'], summary: 'OAuth protected resource metadata (RFC 9728)', response: { 200: ProtectedResourceMetadataSchema } } },
    (request) => ({
      resource: oauth?.resourceUrl ?? base(request),
      authorization_servers: oauth?.providers.map((provider) => provider.issuerUrl) ?? [],
      bearer_methods_supported: ['header'],
      jwks_uri: `${base(request)}/.well-known/jwks.json`,
      scopes_supported: oauth?.scopesSupported ?? [],
    }),
  );

  app.get(
    '/.well-known/toolyard-configuration',
    { schema: { tags: ['public'], summary: 'Client configuration discovery', response: { 200: DiscoverySchema } } },
    (request) => {
      const provider = oauth && (oauth.providers.find((candidate) => candidate.name === config.clientConfiguration.provider) ?? oauth.providers[0]);
      return {
        client_id: oauth ? config.clientConfiguration.clientId : '',
        config_endpoint: `${base(request)}/v1/configuration`,
        issuer: provider?.issuerUrl ?? '',
        jwks_uri: `${base(request)}/.well-known/jwks.json`,
        oauth_protected_resource: `${base(request)}/.well-known/oauth-protected-resource`,
        scopes_supported: oauth?.scopesSupported ?? [],
      };
    },
  );

  app.get(
    '/.well-known/jwks.json',
    { schema: { tags: ['public'], summary: 'The public keys that sign configuration envelopes and usage checkpoints', response: { 200: JwksSchema } } },
    () => service.jwks(),
  );
}
