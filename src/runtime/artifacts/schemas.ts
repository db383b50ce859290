import { Type, type Static } from '@sinclair/typebox';

export const AbsolutePath = Type.String({ minLength: 1, description: 'an absolute path to a folder on this machine' });
export const ValidateBody = Type.Object({ path: AbsolutePath }, { additionalProperties: false });
export const BuildBody = Type.Object(
  { path: AbsolutePath, tag: Type.Optional(Type.String({ description: 'default <name>:<version|latest>; may be a full OCI reference' })) },
  { additionalProperties: false },
);
export const ValidationResult = Type.Object({ valid: Type.Boolean(), errors: Type.Array(Type.String()), warnings: Type.Array(Type.String()) });
export const BuildResult = Type.Object({ reference: Type.String({ description: 'the tag the build is stored under' }) });
export const BuildSummary = Type.Object({ tag: Type.String(), digest: Type.String(), name: Type.String(), version: Type.String() });
export const BuildList = Type.Object({ builds: Type.Array(BuildSummary) });
export const TagParam = Type.Object({ tag: Type.String({ minLength: 1 }) });

export type ValidationResult = Static<typeof ValidationResult>;
