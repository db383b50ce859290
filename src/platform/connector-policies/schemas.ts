import { Type, type Static } from '@sinclair/typebox';

const Uuid = Type.String({ format: 'uuid' });

export const ConnectorPolicySchema = Type.Object(
  {
    connector_id: Uuid,
    document: Type.String({ description: 'the Cedar policy text; in structured mode generated from the granted groups ("" with none: deny all)' }),
    granted_user_groups: Type.Array(Type.Object({ id: Uuid, name: Type.String() }, { additionalProperties: false }), { description: 'by name, then id' }),
    mode: Type.Union([Type.Literal('structured'), Type.Literal('document')]),
  },
  { $id: 'ConnectorPolicy', additionalProperties: false },
);
export type ConnectorPolicy = Static<typeof ConnectorPolicySchema>;

export const PolicyParamsSchema = Type.Object({ id: Uuid }, { additionalProperties: false });
export const PolicyGroupParamsSchema = Type.Object({ id: Uuid, group_id: Uuid }, { additionalProperties: false });

/** No maxItems: more than 1000 groups is a 413, not a 400 (PLATFORM-API Part 4 §5 item 4). */
export const PolicyGroupsBodySchema = Type.Object({ group_ids: Type.Array(Uuid, { description: 'directory group ids; [] revokes every group; at most 1000 (413)' }) }, { additionalProperties: false });
export type PolicyGroupsBody = Static<typeof PolicyGroupsBodySchema>;

/** No maxLength: more than 64 KiB is a 413, not a 400. */
export const PolicyDocumentBodySchema = Type.Object({ document: Type.String({ description: 'Cedar policies, at most 64 KiB, validated strictly against the Toolyard schema; no templates' }) }, { additionalProperties: false });
export type PolicyDocumentBody = Static<typeof PolicyDocumentBodySchema>;
