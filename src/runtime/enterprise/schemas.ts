import { Type, type Static } from '@sinclair/typebox';

/** What `enterprise set` stores: where the configuration and its keys are read, and the token file if any. */
export const EnterpriseSettingsSchema = Type.Object(
  {
    platform_url: Type.String({ description: 'the URL given to set: a platform base URL or its configuration URL' }),
    config_url: Type.String({ description: 'where the signed envelope is fetched (discovery config_endpoint)' }),
    jwks_uri: Type.String({ description: 'where the public keys that sign it are published' }),
    token_file: Type.Optional(Type.String({ description: 'file holding a bearer token sent with each fetch (the token itself is never stored or shown)' })),
  },
  { additionalProperties: false },
);
export type EnterpriseSettings = Static<typeof EnterpriseSettingsSchema>;

export const EnterpriseSetSchema = Type.Object(
  {
    url: Type.String({ description: 'a platform base URL (discovery at /.well-known/toolyard-configuration) or its configuration URL', minLength: 1 }),
    token_file: Type.Optional(Type.String({ description: 'absolute path of a file holding a bearer token for the fetch', minLength: 1 })),
  },
  { additionalProperties: false },
);
export type EnterpriseSet = Static<typeof EnterpriseSetSchema>;

export const RefreshOutcomeSchema = Type.Union([
  Type.Literal('applied'),
  Type.Literal('not_modified'),
  Type.Literal('unreachable'),
  Type.Literal('refused'),
  Type.Literal('expired'),
]);

/** The outcome of the last fetch, kept beside the envelope so the CLI and the API report the same thing. */
export const RefreshRecordSchema = Type.Object({
  at: Type.String({ description: 'when the platform was last asked' }),
  outcome: RefreshOutcomeSchema,
  error: Type.String({ description: 'why the last fetch did not apply a configuration; empty when it did' }),
  last_success_at: Type.String({ description: 'when a valid envelope was last received or confirmed (304); empty if never' }),
});
export type RefreshRecord = Static<typeof RefreshRecordSchema>;

export const ModeSchema = Type.Union(
  [Type.Literal('none'), Type.Literal('pending'), Type.Literal('current'), Type.Literal('grace'), Type.Literal('degraded')],
  {
    description:
      'none: no enterprise configuration set; pending: set, but no valid envelope received yet (nothing applied); current: before not_after; grace: past not_after, within the grace period (still enforced, message shown); degraded: past the grace period (still enforced; block_new refuses new workloads)',
  },
);
export type Mode = Static<typeof ModeSchema>;

const DirectiveSchema = Type.Object({ enforcement: Type.Union([Type.Literal('enforced'), Type.Literal('default')]), value: Type.Unknown() });

export const EnterpriseStatusSchema = Type.Object({
  configured: Type.Boolean(),
  platform_url: Type.String(),
  config_url: Type.String(),
  jwks_uri: Type.String(),
  token_file: Type.String({ description: 'the token file path, empty when none; never the token' }),
  mode: ModeSchema,
  reason: Type.String({ description: 'why this mode applies' }),
  message: Type.String({ description: "the envelope's degraded_mode message, shown past not_after" }),
  policy: Type.String({ description: "the envelope's degraded_mode policy (warn or block_new), empty without an envelope" }),
  blocks_new_workloads: Type.Boolean({ description: 'true when new workloads are refused (block_new past the grace period)' }),
  envelope: Type.Union([
    Type.Null(),
    Type.Object({
      kid: Type.String({ description: 'the key that signed it' }),
      etag: Type.String(),
      issued_at: Type.String(),
      not_after: Type.String(),
      refresh_interval: Type.String(),
      grace_period: Type.String(),
      directives: Type.Record(Type.String(), DirectiveSchema),
    }),
  ]),
  last_refresh: Type.Union([Type.Null(), RefreshRecordSchema]),
});
export type EnterpriseStatus = Static<typeof EnterpriseStatusSchema>;

/** The last valid envelope as kept on disk (it was verified before it was written). */
export const HeldEnvelopeSchema = Type.Object({
  config: Type.Record(Type.String(), DirectiveSchema),
  degraded_mode: Type.Object({ grace_period: Type.String(), message: Type.String(), policy: Type.Union([Type.Literal('warn'), Type.Literal('block_new')]) }),
  etag: Type.String(),
  issued_at: Type.String(),
  not_after: Type.String(),
  refresh_interval: Type.String(),
  schema_version: Type.Literal('1'),
  signature: Type.String(),
});
