import { Type, type Static } from '@sinclair/typebox';
import { ref } from '../../core/http/schemas.js';

/* Virtual API keys (PLATFORM-API Part 2 §3). */

const Timestamp = Type.String({ format: 'date-time' });
const Nullable = <T extends ReturnType<typeof Type.String>>(schema: T) => Type.Union([schema, Type.Null()]);

export const KEY_STATUSES = ['active', 'disabled', 'revoked', 'expired'] as const;
const KeyStatus = Type.Union(
  KEY_STATUSES.map((status) => Type.Literal(status)),
  { description: 'expired is computed from expires_at; revoked > expired > disabled' },
);

export const KeySchema = Type.Object(
  {
    created_at: Timestamp,
    created_by: Type.String({ description: "the creating token's OIDC subject, carried by the key's charges" }),
    expires_at: Nullable(Timestamp),
    id: Type.String({ format: 'uuid' }),
    last_used_at: Nullable(Timestamp),
    metadata: Type.Record(Type.String(), Type.String()),
    name: Type.String(),
    owner_ref: Type.String({ format: 'uuid', description: "the owner's (the creator's) directory user id" }),
    prefix: Type.String({ description: 'the first 12 characters of the secret, for telling keys apart' }),
    status: KeyStatus,
  },
  { $id: 'VirtualKey', additionalProperties: false },
);

export const KeyWithSecretSchema = Type.Object(
  { key: ref(KeySchema), secret: Type.String({ description: 'tyk_ and 43 base62 characters; shown only now' }) },
  { $id: 'VirtualKeyWithSecret' },
);

export const KeyCreateBodySchema = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 128 }),
    expires_at: Type.Optional(Type.Union([Timestamp, Type.Null()], { description: 'a future RFC 3339 time; absent or null: never' })),
    metadata: Type.Optional(
      Type.Unsafe<Record<string, string>>({
        type: 'object',
        patternProperties: { '^[A-Za-z0-9_.:-]{1,64}$': { type: 'string', maxLength: 256 } },
        additionalProperties: false,
        maxProperties: 16,
        description: 'at most 16 entries; keys ^[A-Za-z0-9_.:-]{1,64}$, string values of at most 256 characters',
      }),
    ),
  },
  { additionalProperties: false },
);

export const KeyIdParamsSchema = Type.Object({ id: Type.String({ format: 'uuid' }) });

export const OwnKeysQuerySchema = Type.Object({ status: Type.Optional(KeyStatus) }, { additionalProperties: false });

export const KeysQuerySchema = Type.Object(
  {
    owner_ref: Type.Optional(Type.String({ format: 'uuid' })),
    status: Type.Optional(KeyStatus),
    cursor: Type.Optional(Type.String()),
    before: Type.Optional(Type.String({ description: 'a prev_cursor: the page before it' })),
    limit: Type.Optional(Type.Integer({ minimum: 1, description: 'default 50, at most 200 (larger values are clamped)' })),
  },
  { additionalProperties: false },
);

export const KeyListSchema = Type.Object({ keys: Type.Array(ref(KeySchema)) });
export const KeyPageSchema = Type.Object({
  keys: Type.Array(ref(KeySchema)),
  next_cursor: Type.Optional(Type.String()),
  prev_cursor: Type.Optional(Type.String()),
});

export type Key = Static<typeof KeySchema>;
export type KeyStatus = Static<typeof KeyStatus>;
export type KeyWithSecret = Static<typeof KeyWithSecretSchema>;
export type KeyCreateBody = Static<typeof KeyCreateBodySchema>;
export type KeysQuery = Static<typeof KeysQuerySchema>;
export type KeyPage = Static<typeof KeyPageSchema>;
export type KeyList = Static<typeof KeyListSchema>;
