import { Type } from '@sinclair/typebox';

const FreeObject = (description: string) => Type.Object({}, { additionalProperties: true, description });

const EnvVar = Type.Object({
  name: Type.String(),
  description: Type.String(),
  required: Type.Boolean(),
  secret: Type.Boolean({ description: 'taken from the secrets store when a workload is created' }),
  default: Type.String(),
});

const EntryFields = {
  name: Type.String({ description: 'the local entry name (the servers map key)' }),
  title: Type.String(),
  description: Type.String(),
  env_vars: Type.Array(EnvVar),
  tools: Type.Array(Type.String()),
  tags: Type.Array(Type.String()),
  repository_url: Type.String(),
  status: Type.String(),
  tier: Type.String(),
  metadata: FreeObject('stars, last_updated, ...'),
  custom_metadata: FreeObject('publisher extras'),
  version: Type.String({ description: 'the catalog record version (server.json version)' }),
};

export const ContainerServerEntrySchema = Type.Object(
  {
    ...EntryFields,
    image: Type.String({ description: 'npx://pkg@version, uvx://pkg@version or an OCI reference' }),
    transport: Type.String({ description: 'stdio, streamable-http or sse' }),
    target_port: Type.Integer({ description: 'the port an HTTP server listens on; 0 when the runtime picks it' }),
    args: Type.Array(Type.String()),
    permissions: FreeObject('permission profile'),
  },
  { description: 'A server the runtime runs as a process' },
);

export const RemoteServerEntrySchema = Type.Object(
  {
    ...EntryFields,
    url: Type.String(),
    transport: Type.String({ description: 'streamable-http or sse' }),
    headers: Type.Array(
      Type.Object({
        name: Type.String(),
        description: Type.String(),
        required: Type.Boolean(),
        secret: Type.Boolean(),
        default: Type.String(),
        choices: Type.Array(Type.String()),
      }),
    ),
  },
  { description: 'A server reached at its URL' },
);

export const RegistrySummarySchema = Type.Object(
  {
    name: Type.String(),
    type: Type.String({ description: 'api, url, file or default (the shipped catalog)' }),
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

const EntryMap = <T extends typeof ContainerServerEntrySchema | typeof RemoteServerEntrySchema>(entry: T) => Type.Record(Type.String(), entry);

export const RegistryContentSchema = Type.Object({
  version: Type.String(),
  last_updated: Type.String(),
  servers: EntryMap(ContainerServerEntrySchema),
  remote_servers: EntryMap(RemoteServerEntrySchema),
  groups: Type.Array(
    Type.Object({ name: Type.String(), description: Type.String(), servers: EntryMap(ContainerServerEntrySchema), remote_servers: EntryMap(RemoteServerEntrySchema) }),
  ),
});

export const RegistryUpdateSchema = Type.Object(
  {
    url: Type.Optional(Type.String({ description: 'a catalog file URL' })),
    api_url: Type.Optional(Type.String({ description: 'a registry API base URL (serves /v0.1/servers)' })),
    local_path: Type.Optional(Type.String({ description: 'an absolute path to a catalog file' })),
    allow_private_ip: Type.Optional(Type.Boolean({ description: 'allow a URL on a loopback or private-network address' })),
  },
  { additionalProperties: false, description: 'at most one of url, api_url and local_path; an empty body resets to the shipped catalog' },
);

export const BrowseQuerySchema = Type.Object({
  q: Type.Optional(Type.String({ description: 'words that must all occur in the name, title, description or tags' })),
  page: Type.Integer({ minimum: 1, default: 1, description: 'page number, from 1' }),
  limit: Type.Integer({ minimum: 1, maximum: 200, default: 50, description: 'page size, 1 to 200' }),
});

export const BrowseMetadataSchema = Type.Object({ limit: Type.Integer(), page: Type.Integer(), total: Type.Integer({ description: 'matches over all pages' }) });

export const ServerJsonSchema = FreeObject('an upstream server.json');
export const PackageRecordSchema = FreeObject('a skill or plugin record');
