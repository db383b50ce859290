import { Type, type Static } from '@sinclair/typebox';

export const AuditEventSchema = Type.Object(
  {
    id: Type.String(),
    occurred_at: Type.String({ format: 'date-time' }),
    actor: Type.Object({
      kind: Type.String({ description: 'user, anonymous or scim' }),
      issuer: Type.Union([Type.String(), Type.Null()]),
      subject: Type.Union([Type.String(), Type.Null()]),
      user_id: Type.Union([Type.String(), Type.Null()], { description: 'the directory user, when the actor has one' }),
    }),
    action: Type.String({ description: 'what was done, e.g. key.revoke or group.member.add' }),
    target: Type.Object({ type: Type.String(), id: Type.Union([Type.String(), Type.Null()]) }),
    before: Type.Unknown({ description: 'the record before the write (never a secret); null for a create' }),
    after: Type.Unknown({ description: 'the record after the write (never a secret); null for a delete' }),
    request_id: Type.Union([Type.String(), Type.Null()]),
  },
  { $id: 'AuditEvent' },
);

export const AuditQuerySchema = Type.Object(
  {
    action: Type.Optional(Type.String({ minLength: 1 })),
    target_type: Type.Optional(Type.String({ minLength: 1 })),
    target_id: Type.Optional(Type.String({ minLength: 1 })),
    actor_subject: Type.Optional(Type.String({ minLength: 1 })),
    cursor: Type.Optional(Type.String()),
    limit: Type.Optional(Type.Integer({ minimum: 1, description: 'default 50, at most 200 (larger values are clamped)' })),
  },
  { additionalProperties: false },
);

export type AuditEvent = Static<typeof AuditEventSchema>;
export type AuditQueryParams = Static<typeof AuditQuerySchema>;
