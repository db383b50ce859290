import { Type, type Static } from '@sinclair/typebox';

const FreeObject = (description: string) => Type.Object({}, { additionalProperties: true, description });
const FreeRecord = (description: string) => Type.Record(Type.String(), Type.Unknown(), { description });

/** An environment variable a catalog entry declares. */
export const EnvVarDeclaration = Type.Object({
  name: Type.String(),
  description: Type.String(),
  required: Type.Boolean(),
  secret: Type.Boolean({ description: 'taken from the secrets store when a workload is created' }),
  default: Type.String(),
});
export type EnvVarDeclaration = Static<typeof EnvVarDeclaration>;

/** A header a remote catalog entry declares. */
export const HeaderDeclaration = Type.Object({ ...EnvVarDeclaration.properties, choices: Type.Array(Type.String()) });

const EntryFields = {
  name: Type.String({ description: 'the local entry name (the servers map key)' }),
  catalog_name: Type.String({
    description: 'the name in the catalog the entry came from (reverse-DNS for server.json records); it stays when another server later takes the short local name',
  }),
  title: Type.String(),
  description: Type.String(),
  env_vars: Type.Array(EnvVarDeclaration),
  tools: Type.Array(Type.String()),
  tags: Type.Array(Type.String()),
  repository_url: Type.String(),
  status: Type.String(),
  tier: Type.String(),
  metadata: FreeRecord('stars, last_updated, ...'),
  custom_metadata: FreeRecord('publisher extras'),
  version: Type.String({ description: 'the catalog record version (server.json version)' }),
};

export const ContainerServerEntrySchema = Type.Object(
  {
    ...EntryFields,
    image: Type.String({ description: 'npx://pkg@version, uvx://pkg@version or an OCI reference' }),
    transport: Type.Union([Type.Literal('stdio'), Type.Literal('streamable-http'), Type.Literal('sse')]),
    target_port: Type.Integer({ description: 'the port an HTTP server listens on; 0 when the runtime picks it' }),
    args: Type.Array(Type.String()),
    permissions: FreeRecord('permission profile'),
  },
  { description: 'A server the runtime runs as a process (or, with an engine, a container)' },
);
export type ContainerServerEntry = Static<typeof ContainerServerEntrySchema>;

export const RemoteServerEntrySchema = Type.Object(
  {
    ...EntryFields,
    url: Type.String(),
    transport: Type.Union([Type.Literal('streamable-http'), Type.Literal('sse')]),
    headers: Type.Array(HeaderDeclaration),
  },
  { description: 'A server reached at its URL' },
);
export type RemoteServerEntry = Static<typeof RemoteServerEntrySchema>;

/** A catalog server the runtime can run, as one registry server route answers it. */
export const ServerLookupSchema = Type.Union([
  Type.Object({ is_remote: Type.Literal(false), server: ContainerServerEntrySchema }),
  Type.Object({ is_remote: Type.Literal(true), remote_server: RemoteServerEntrySchema }),
]);
export type ServerLookup = Static<typeof ServerLookupSchema>;

export const SOURCE_TYPES = ['api', 'url', 'file', 'default'] as const;
export type SourceType = (typeof SOURCE_TYPES)[number];

export const RegistrySummarySchema = Type.Object(
  {
    name: Type.String(),
    type: Type.Union(SOURCE_TYPES.map((type) => Type.Literal(type)), { description: 'api, url, file or default (the shipped catalog)' }),
    source: Type.String({ description: 'the API URL, catalog URL or file path; empty for the shipped catalog' }),
    version: Type.String(),
    last_updated: Type.String(),
    server_count: Type.Integer(),
    auth_status: Type.String(),
    auth_type: Type.String(),
    auth_config: Type.Object({ audience: Type.String(), client_id: Type.String(), issuer: Type.String(), scopes: Type.Array(Type.String()) }),
  },
  { description: 'A configured registry' },
);
export type RegistrySummary = Static<typeof RegistrySummarySchema>;

const EntryMap = <T extends typeof ContainerServerEntrySchema | typeof RemoteServerEntrySchema>(entry: T) => Type.Record(Type.String(), entry);

export const CatalogGroupSchema = Type.Object({
  name: Type.String(),
  description: Type.String(),
  servers: EntryMap(ContainerServerEntrySchema),
  remote_servers: EntryMap(RemoteServerEntrySchema),
});
export type CatalogGroup = Static<typeof CatalogGroupSchema>;

export const RegistryContentSchema = Type.Object({
  version: Type.String(),
  last_updated: Type.String(),
  servers: EntryMap(ContainerServerEntrySchema),
  remote_servers: EntryMap(RemoteServerEntrySchema),
  groups: Type.Array(CatalogGroupSchema),
});
export type RegistryContent = Static<typeof RegistryContentSchema>;

export const RegistryUpdateSchema = Type.Object(
  {
    url: Type.Optional(Type.String({ description: 'a catalog file URL' })),
    api_url: Type.Optional(Type.String({ description: 'a registry API base URL (serves /v0.1/servers)' })),
    local_path: Type.Optional(Type.String({ description: 'an absolute path to a catalog file' })),
    allow_private_ip: Type.Optional(Type.Boolean({ description: 'allow a URL on a loopback or private-network address' })),
  },
  { additionalProperties: false, description: 'at most one of url, api_url and local_path; an empty body resets to the shipped catalog' },
);
/** The body of `PUT /registry/default`, saved as it is in `<config>/registry.json`. */
export type RegistryUpdate = Static<typeof RegistryUpdateSchema>;

export const BrowseQuerySchema = Type.Object({
  q: Type.Optional(Type.String({ description: 'words that must all occur in the name, title, description or tags' })),
  page: Type.Integer({ minimum: 1, default: 1, description: 'page number, from 1' }),
  limit: Type.Integer({ minimum: 1, maximum: 200, default: 50, description: 'page size, 1 to 200' }),
});
export type BrowseQuery = Static<typeof BrowseQuerySchema>;

export const BrowseMetadataSchema = Type.Object({ limit: Type.Integer(), page: Type.Integer(), total: Type.Integer({ description: 'matches over all pages' }) });

export const ServerJsonSchema = FreeObject('an upstream server.json');
export const PackageRecordSchema = FreeObject('a skill or plugin record');
