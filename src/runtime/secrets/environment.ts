/** Reads secret values by key. Callers keep values out of logs and responses; only keys travel. */
export interface SecretReader {
  get: (name: string) => Promise<string | undefined>;
}

/** `github-token` → `TOOLYARD_SECRET_GITHUB_TOKEN`. */
export function secretVariableName(name: string): string {
  return `TOOLYARD_SECRET_${name.toUpperCase().replace(/[^A-Z0-9]/g, '_')}`;
}

/**
 * The environment provider: secrets are environment variables of the runtime process. The map is
 * passed in so that nothing reads `process.env` deep in the code.
 */
export function createEnvironmentSecretReader(env: Readonly<Record<string, string | undefined>>): SecretReader {
  return {
    get: (name) => Promise.resolve(env[secretVariableName(name)]),
  };
}
