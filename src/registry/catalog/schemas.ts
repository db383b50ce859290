import { Type } from '@sinclair/typebox';
import { ref } from '../../core/http/schemas.js';
import { FreeObject, ListMetadataSchema } from '../http/schemas.js';

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
