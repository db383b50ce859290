import { Type, type Static } from '@sinclair/typebox';
import { loadConfig } from '../core/config/load.js';

/** Variables with this prefix set the runtime's configuration keys: `TOOLYARD_RUNTIME_SIGSTORE_TRUSTED_ROOT` is `sigstore.trustedRoot`. */
export const RUNTIME_ENV_PREFIX = 'TOOLYARD_RUNTIME_';

export const RuntimeConfigSchema = Type.Object(
  {
    sigstore: Type.Object(
      {
        trustedRoot: Type.Optional(
          Type.String({
            minLength: 1,
            description:
              "absolute path of a Sigstore trusted_root.json (certificate authorities, transparency logs, CT logs, timestamp authorities); certificate-signed skills and plugins verify against it, and are refused without it",
          }),
        ),
        fulcioUrl: Type.Optional(Type.String({ minLength: 1, description: 'base URL of the Fulcio that issues signing certificates for push with identity_token' })),
        rekorUrl: Type.Optional(Type.String({ minLength: 1, description: 'base URL of the Rekor transparency log that keyless signatures are recorded in; without it, keyless bundles carry no tlog entry' })),
      },
      { default: {}, additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);
export type RuntimeConfig = Static<typeof RuntimeConfigSchema>;

/** The name of a key as a person sets it, for messages: `sigstore.trustedRoot (TOOLYARD_RUNTIME_SIGSTORE_TRUSTED_ROOT)`. */
export function configKey(path: string): string {
  const variable = path.replace(/([a-z0-9])([A-Z])/g, '$1_$2').replace(/\./g, '_').toUpperCase();
  return `${path} (${RUNTIME_ENV_PREFIX}${variable})`;
}

/** The runtime's configuration: the runtime has no file of its own, so its keys come from the environment. */
export function loadRuntimeConfig(env: Record<string, string | undefined>): RuntimeConfig {
  return loadConfig({ schema: RuntimeConfigSchema, envPrefix: RUNTIME_ENV_PREFIX, env, origin: 'runtime configuration' });
}
