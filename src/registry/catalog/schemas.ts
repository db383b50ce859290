import { Type, type Static } from '@sinclair/typebox';
import { ref } from '../../core/http/schemas.js';
import { ClaimsSchema } from '../config.js';


const FreeObject = (description: string) => Type.Object({}, { additionalProperties: true, description });

export const OfficialMetaSchema = Type.Object({
  status: Type.String({ description: 'active, deprecated or deleted' }),
  statusMessage: Type.Optional(Type.String()),
  publishedAt: Type.String({ format: 'date-time' }),
  updatedAt: Type.String({ format: 'date-time' }),
  statusChangedAt: Type.String({ format: 'date-time' }),
  isLatest: Type.Boolean({ description: 'the highest version of this name in the source that serves it' }),
});

export const ServerRecordSchema = Type.Object(
  {
    server: FreeObject('the server.json as published; its _meta holds io.modelcontextprotocol.registry/publisher-provided untouched'),
    _meta: Type.Object({ 'io.modelcontextprotocol.registry/official': OfficialMetaSchema }),
  },
  { $id: 'ServerResponse' },
);

export const ListMetadataSchema = Type.Object({ count: Type.Integer(), nextCursor: Type.Optional(Type.String({ description: 'pass as cursor for the next page' })) });

export const ServerListSchema = Type.Object({ servers: Type.Array(ref(ServerRecordSchema)), metadata: ListMetadataSchema }, { $id: 'ServerList' });

export const PackageRecordSchema = Type.Object(
  {
    namespace: Type.String(),
    name: Type.String(),
    version: Type.String(),
    status: Type.String(),
    title: Type.Optional(Type.String()),
    description: Type.Optional(Type.String()),
    license: Type.Optional(Type.String()),
    allowedTools: Type.Optional(Type.Array(Type.String(), { description: 'skills only' })),
    compatibility: Type.Optional(Type.String({ description: 'skills only' })),
    packages: Type.Optional(Type.Array(FreeObject('where to get it: registryType, identifier, url, ref, commit, digest, subfolder, mediaType'))),
    repository: Type.Optional(FreeObject('{type, url}')),
    icons: Type.Optional(Type.Array(FreeObject('{src, type, size, label}'))),
    provenance: Type.Optional(FreeObject('attestation and signing details')),
    metadata: Type.Optional(FreeObject('free metadata')),
    _meta: Type.Optional(FreeObject('publisher metadata plus io.modelcontextprotocol.registry/official')),
  },
  { additionalProperties: true, $id: 'PackageRecord', description: 'a skill or plugin version' },
);

export const ServerListQuerySchema = Type.Object({
  cursor: Type.Optional(Type.String({ description: 'metadata.nextCursor of the previous page' })),
  limit: Type.Integer({ minimum: 1, maximum: 100, default: 30, description: 'page size, 1 to 100' }),
  search: Type.Optional(Type.String({ description: 'case-insensitive substring of the server name' })),
  version: Type.Optional(Type.String({ description: '"latest" for one record per name, or an exact version' })),
  updated_since: Type.Optional(Type.String({ description: 'RFC 3339 time: only records updated at or after it' })),
});

export const ADMIN_PAGE_LIMIT = { default: 100, maximum: 500 };

export const AdminListQuerySchema = Type.Object({
  cursor: Type.Optional(Type.String({ description: 'metadata.nextCursor of the previous page' })),
  limit: Type.Integer({
    minimum: 1,
    maximum: ADMIN_PAGE_LIMIT.maximum,
    default: ADMIN_PAGE_LIMIT.default,
    description: `page size, 1 to ${ADMIN_PAGE_LIMIT.maximum}; a page holds fewer items when some are hidden from the caller, so follow metadata.nextCursor until it is absent`,
  }),
});

export type ListQuery = Static<typeof AdminListQuerySchema>;

export const PackageListQuerySchema = Type.Object({
  cursor: Type.Optional(Type.String()),
  limit: Type.Integer({ minimum: 1, maximum: 100, default: 50, description: 'page size, 1 to 100' }),
  search: Type.Optional(Type.String({ description: 'case-insensitive substring of name or description' })),
  status: Type.Optional(Type.String({ description: 'comma-separated: active, deprecated, archived' })),
});

export const RegistryParams = Type.Object({ registryName: Type.String() });
export const ServerParams = Type.Object({ registryName: Type.String(), serverName: Type.String({ description: 'URL-encoded, the slash as %2F' }) });
export const ServerVersionParams = Type.Object({ registryName: Type.String(), serverName: Type.String(), version: Type.String({ description: 'URL-encoded; "latest" allowed' }) });
export const PackageParams = Type.Object({ registryName: Type.String(), namespace: Type.String(), name: Type.String() });
export const PackageVersionParams = Type.Object({ registryName: Type.String(), namespace: Type.String(), name: Type.String(), version: Type.String() });

const SyncStatusSchema = Type.Object({
  phase: Type.String({ description: 'syncing, complete or failed' }),
  lastAttempt: Type.Optional(Type.String({ format: 'date-time' })),
  lastSyncTime: Type.Optional(Type.String({ format: 'date-time', description: 'last successful sync' })),
  attemptCount: Type.Integer({ description: 'failed attempts since the last success' }),
  message: Type.String(),
  serverCount: Type.Integer(),
  skillCount: Type.Integer(),
  pluginCount: Type.Integer(),
});

const IncludeExclude = Type.Object({ include: Type.Array(Type.String()), exclude: Type.Array(Type.String()) });

export const SourceSchema = Type.Object(
  {
    name: Type.String(),
    sourceType: Type.String({ description: 'git, api, file, managed or kubernetes' }),
    type: Type.String({ description: 'REMOTE, FILE, MANAGED or KUBERNETES' }),
    sourceConfig: FreeObject('the kind block as configured'),
    filterConfig: Type.Object({ names: IncludeExclude, tags: IncludeExclude }),
    claims: ClaimsSchema,
    creationType: Type.String({ description: 'API or CONFIG (read-only through the API)' }),
    syncSchedule: Type.String({ description: 'sync interval; empty for sources that are not synced' }),
    syncStatus: SyncStatusSchema,
    createdAt: Type.String({ format: 'date-time' }),
    updatedAt: Type.String({ format: 'date-time' }),
  },
  { $id: 'Source' },
);

export const RegistrySchema = Type.Object(
  {
    name: Type.String(),
    sources: Type.Array(Type.String(), { description: 'source names, first wins' }),
    claims: ClaimsSchema,
    creationType: Type.String(),
    createdAt: Type.String({ format: 'date-time' }),
    updatedAt: Type.String({ format: 'date-time' }),
  },
  { $id: 'Registry' },
);

export const RegistryBodySchema = Type.Object(
  {
    sources: Type.Optional(Type.Array(Type.String(), { description: 'source names in order of precedence' })),
    claims: Type.Optional(ClaimsSchema),
  },
  { additionalProperties: false },
);

export const SourceEntrySchema = Type.Object({
  entryType: Type.String(),
  name: Type.String(),
  claims: ClaimsSchema,
  versions: Type.Array(
    Type.Object({ version: Type.String(), title: Type.String(), description: Type.String(), createdAt: Type.String(), updatedAt: Type.String() }),
  ),
});

export const RegistryEntrySchema = Type.Object({
  entryType: Type.String(),
  name: Type.String(),
  version: Type.String(),
  title: Type.String(),
  description: Type.String(),
  sourceName: Type.String(),
  position: Type.Integer({ description: "the source's index in the registry (0 = highest precedence)" }),
  createdAt: Type.String(),
  updatedAt: Type.String(),
});

export const PublishBodySchema = Type.Object(
  {
    server: Type.Optional(FreeObject('a server.json')),
    skill: Type.Optional(FreeObject('a skill record')),
    plugin: Type.Optional(FreeObject('a plugin record')),
    claims: Type.Optional(ClaimsSchema),
  },
  { additionalProperties: false, description: 'exactly one of server, skill and plugin' },
);

// an enum rather than a union of literals, so a wrong value is answered with the values allowed
export const EntryTypeSchema = Type.Unsafe<'server' | 'skill' | 'plugin'>({ type: 'string', enum: ['server', 'skill', 'plugin'], description: 'server, skill or plugin' });
export const EntryParams = Type.Object({ type: EntryTypeSchema, name: Type.String({ description: 'namespace/name URL-encoded (%2F)' }) });
export const EntryVersionParams = Type.Object({ type: EntryTypeSchema, name: Type.String(), version: Type.String() });
export const ClaimsBodySchema = Type.Object({ claims: ClaimsSchema }, { additionalProperties: false });
export const NameParams = Type.Object({ name: Type.String() });

export type RegistryBody = Static<typeof RegistryBodySchema>;
