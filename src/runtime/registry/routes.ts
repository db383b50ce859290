import { Type } from '@sinclair/typebox';
import type { HttpApp } from '../../core/http/app.js';
import { ErrorSchema } from '../../core/http/schemas.js';
import { API_PREFIX } from '../workloads/routes.js';
import {
  BrowseMetadataSchema,
  BrowseQuerySchema,
  ContainerServerEntrySchema,
  PackageRecordSchema,
  RegistryContentSchema,
  RegistrySummarySchema,
  RegistryUpdateSchema,
  RemoteServerEntrySchema,
  ServerJsonSchema,
  ServerLookupSchema,
} from './schemas.js';
import type { RegistryService } from './service.js';

const NameParam = Type.Object({ name: Type.String({ description: 'the registry name; the runtime has one, default' }) });
const ServerParam = Type.Object({ name: NameParam.properties.name, serverName: Type.String({ description: 'the local entry name or the URL-encoded reverse-DNS name' }) });
const BrowseParam = Type.Object({ registryName: Type.String({ description: 'accepted for API compatibility; the configured registry answers' }) });
const BrowseServerParam = Type.Object({ registryName: BrowseParam.properties.registryName, serverName: Type.String({ description: 'URL-encoded reverse-DNS name (the slash as %2F) or the local entry name' }) });
const PackageParam = Type.Object({ registryName: BrowseParam.properties.registryName, namespace: Type.String(), name: Type.String() });
const unavailable = { 503: ErrorSchema };
const tags = ['registry'];
const browseTags = ['registry browse'];

/** The configured registry (`/api/v1beta/registry`) and the browse API for UIs (`/registry/{name}/v0.1`). */
export function registerRegistryRoutes(app: HttpApp, deps: { registry: RegistryService }): void {
  const { registry } = deps;
  const base = `${API_PREFIX}/registry`;

  app.get(
    base,
    { schema: { tags, summary: 'List registries', response: { 200: Type.Object({ registries: Type.Array(RegistrySummarySchema) }), ...unavailable } } },
    async () => ({ registries: await registry.list() }),
  );
  app.get(
    `${base}/:name`,
    {
      schema: {
        tags,
        summary: 'Get a registry with its entries',
        params: NameParam,
        response: { 200: Type.Object({ ...RegistrySummarySchema.properties, registry: RegistryContentSchema }), 404: ErrorSchema, ...unavailable },
      },
    },
    (request) => registry.get(request.params.name),
  );
  app.get(
    `${base}/:name/servers`,
    {
      schema: {
        tags,
        summary: 'List the servers of a registry',
        params: NameParam,
        response: { 200: Type.Object({ servers: Type.Array(ContainerServerEntrySchema), remote_servers: Type.Array(RemoteServerEntrySchema) }), 404: ErrorSchema, ...unavailable },
      },
    },
    (request) => registry.servers(request.params.name),
  );
  app.get(
    `${base}/:name/servers/:serverName`,
    {
      schema: {
        tags,
        summary: 'Get a server of a registry',
        params: ServerParam,
        response: {
          200: ServerLookupSchema,
          404: ErrorSchema,
          ...unavailable,
        },
      },
    },
    (request) => registry.server(request.params.name, request.params.serverName),
  );
  app.put(
    `${base}/:name`,
    {
      schema: {
        tags,
        summary: 'Point the default registry at a registry API, a catalog URL or a local file (an empty body: the shipped catalog)',
        params: NameParam,
        body: RegistryUpdateSchema,
        response: { 200: Type.Object({ type: Type.String() }), 400: ErrorSchema, 404: ErrorSchema, 502: ErrorSchema, 504: ErrorSchema },
      },
    },
    (request) => registry.update(request.params.name, request.body),
  );
  app.post(
    `${base}/:name/refresh`,
    {
      schema: {
        tags,
        summary: 'Fetch or read the registry again now, bypassing the cache',
        params: NameParam,
        response: { 200: RegistrySummarySchema, 400: ErrorSchema, 404: ErrorSchema, 502: ErrorSchema, 504: ErrorSchema, ...unavailable },
      },
    },
    (request) => registry.refresh(request.params.name),
  );

  const browse = '/registry/:registryName/v0.1';
  const list = (key: string, item: typeof ServerJsonSchema) => Type.Object({ metadata: BrowseMetadataSchema, [key]: Type.Array(item) });
  app.get(
    `${browse}/servers`,
    { schema: { tags: browseTags, summary: 'Browse servers (latest versions)', params: BrowseParam, querystring: BrowseQuerySchema, response: { 200: list('servers', ServerJsonSchema), 400: ErrorSchema, ...unavailable } } },
    async (request) => {
      const { metadata, items } = await registry.browseServers(request.query);
      return { metadata, servers: items };
    },
  );
  app.get(
    `${browse}/servers/:serverName/versions/latest`,
    { schema: { tags: browseTags, summary: 'Get the latest version of a server', params: BrowseServerParam, response: { 200: ServerJsonSchema, 400: ErrorSchema, 404: ErrorSchema, ...unavailable } } },
    (request) => registry.browseServer(request.params.serverName),
  );
  for (const [kind, plural] of [
    ['skill', 'skills'],
    ['plugin', 'plugins'],
  ] as const) {
    app.get(
      `${browse}/x/dev.toolyard/${plural}`,
      { schema: { tags: browseTags, summary: `Browse ${plural}`, params: BrowseParam, querystring: BrowseQuerySchema, response: { 200: list(plural, PackageRecordSchema), 400: ErrorSchema, ...unavailable } } },
      async (request) => {
        const { metadata, items } = await registry.browsePackages(kind, request.query);
        return { metadata, [plural]: items };
      },
    );
    app.get(
      `${browse}/x/dev.toolyard/${plural}/:namespace/:name`,
      { schema: { tags: browseTags, summary: `Get a ${kind}`, params: PackageParam, response: { 200: PackageRecordSchema, 404: ErrorSchema, ...unavailable } } },
      (request) => registry.browsePackage(kind, request.params.namespace, request.params.name),
    );
  }
}
