import { Type } from '@sinclair/typebox';
import { ClaimsSchema } from '../config.js';
import { FreeObject } from '../http/schemas.js';

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

export const SourceEntrySchema = Type.Object({
  entryType: Type.String(),
  name: Type.String(),
  claims: ClaimsSchema,
  versions: Type.Array(
    Type.Object({ version: Type.String(), title: Type.String(), description: Type.String(), createdAt: Type.String(), updatedAt: Type.String() }),
  ),
});
