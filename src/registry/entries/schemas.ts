import { Type, type Static } from '@sinclair/typebox';
import type { EntryType } from '../tables.js';
import { ClaimsSchema } from '../config.js';
import { FreeObject } from '../http/schemas.js';

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
export const EntryTypeSchema = Type.Unsafe<EntryType>({ type: 'string', enum: ['server', 'skill', 'plugin'], description: 'server, skill or plugin' });
export const EntryParams = Type.Object({ type: EntryTypeSchema, name: Type.String({ description: 'namespace/name URL-encoded (%2F)' }) });
export const EntryVersionParams = Type.Object({ type: EntryTypeSchema, name: Type.String(), version: Type.String() });
export const ClaimsBodySchema = Type.Object({ claims: ClaimsSchema }, { additionalProperties: false });

export type PublishBody = Static<typeof PublishBodySchema>;
