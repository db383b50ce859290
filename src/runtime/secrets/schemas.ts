import { Type, type Static } from '@sinclair/typebox';

export const PROVIDER_TYPES = ['encrypted', 'environment', '1password'] as const;
export type ProviderType = (typeof PROVIDER_TYPES)[number];

export const ProviderTypeSchema = Type.Union(
  PROVIDER_TYPES.map((type) => Type.Literal(type)),
  { description: 'encrypted (read, write, list, delete; the default), environment (read-only TOOLYARD_SECRET_<NAME>), 1password (read, list; needs OP_SERVICE_ACCOUNT_TOKEN)' },
);

export const SetupBody = Type.Object(
  {
    provider_type: ProviderTypeSchema,
    password: Type.Optional(
      Type.String({
        minLength: 8,
        maxLength: 1024,
        description: 'encrypted only: the store password, kept in the OS keyring or the key file; the store is re-encrypted with it. Omitted: the current one, or a new random one.',
      }),
    ),
  },
  { additionalProperties: false },
);

/** `<config>/secrets.json`: the provider in force. */
export const SecretsSettings = Type.Object({ provider_type: ProviderTypeSchema });
export type SecretsSettings = Static<typeof SecretsSettings>;

export const SetupReply = Type.Object({ provider_type: ProviderTypeSchema, message: Type.String() });

export const ProviderParams = Type.Object({ name: Type.String({ description: 'the secrets provider; the only one is default' }) });

export const KeyParams = Type.Object({
  name: ProviderParams.properties.name,
  key: Type.String({ minLength: 1, maxLength: 512, description: 'the secret key' }),
});

/** What a provider can do; the API answers 405 to an operation whose capability is false. */
export const Capabilities = Type.Object({ read: Type.Boolean(), write: Type.Boolean(), list: Type.Boolean(), delete: Type.Boolean() });
export type Capabilities = Static<typeof Capabilities>;

export const ProviderDescription = Type.Object({
  name: Type.String(),
  provider_type: ProviderTypeSchema,
  capabilities: Capabilities,
});
export type ProviderDescription = Static<typeof ProviderDescription>;

export const KeyList = Type.Object({ keys: Type.Array(Type.Object({ key: Type.String() })) });

const SecretValue = Type.String({ minLength: 1, maxLength: 64 * 1024, description: 'the secret value; never returned' });

export const CreateKeyBody = Type.Object(
  {
    key: Type.String({
      pattern: '^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$',
      description: 'Letters, digits, dot, dash and underscore; starts with a letter or digit; at most 128 characters.',
    }),
    value: SecretValue,
  },
  { additionalProperties: false },
);

export const UpdateKeyBody = Type.Object({ value: SecretValue }, { additionalProperties: false });

export const KeyReply = Type.Object({ key: Type.String(), message: Type.String() });
