import { Type, type Static } from '@sinclair/typebox';
import { ClaimsSchema } from '../config.js';

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

export type RegistryBody = Static<typeof RegistryBodySchema>;
