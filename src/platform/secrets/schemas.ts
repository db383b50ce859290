import { Type, type Static } from '@sinclair/typebox';

/*
 * Managed secrets (document "Other records"; PLATFORM-API Part 4 §3). The value is write-only: no
 * response carries it.
 */

/** The largest value, in bytes of UTF-8. */
export const MAX_VALUE_BYTES = 64 * 1024;

const Uuid = Type.String({ format: 'uuid' });
const Timestamp = Type.String({ format: 'date-time' });
/** No control characters: names are shown in consoles, logs and 409 messages. */
const Name = Type.String({ minLength: 1, maxLength: 128, pattern: '^[^\\u0000-\\u001f\\u007f-\\u009f]*$', description: 'unique, ignoring case' });
const Value = Type.String({ minLength: 1, description: 'the secret (at most 64 KiB of UTF-8); stored encrypted and never returned' });

export const ManagedSecretSchema = Type.Object(
  { created_at: Timestamp, id: Uuid, name: Type.String(), updated_at: Timestamp },
  { $id: 'ManagedSecret', additionalProperties: false, description: 'a managed secret; its value is never returned' },
);
export type ManagedSecret = Static<typeof ManagedSecretSchema>;

export const CreateManagedSecretBodySchema = Type.Object({ name: Name, value: Value }, { additionalProperties: false });
export type CreateManagedSecretBody = Static<typeof CreateManagedSecretBodySchema>;

export const ReplaceManagedSecretBodySchema = Type.Object({ value: Value }, { additionalProperties: false });
export type ReplaceManagedSecretBody = Static<typeof ReplaceManagedSecretBodySchema>;

export const ManagedSecretPageSchema = Type.Object(
  { items: Type.Array(Type.Ref('ManagedSecret')), next_cursor: Type.Optional(Type.String()), prev_cursor: Type.Optional(Type.String()) },
  { additionalProperties: false },
);

export const SecretIdParamsSchema = Type.Object({ id: Uuid }, { additionalProperties: false });
