import { execFile } from 'node:child_process';
import type { RegistryCredential } from './store.js';

const HELPER_NAME = /^[\w.-]+$/;
const HELPER_TIMEOUT_MS = 10_000;
/** What Docker's helpers answer as the user name when the secret is an identity token. */
const TOKEN_USER = '<token>';

/**
 * Asks `docker-credential-<name> get` for a server's credentials (the credential helper protocol:
 * the server on stdin, `{Username, Secret}` on stdout). A helper that is missing, fails or knows no
 * credentials gives none; its output is never logged, as it is the secret itself.
 */
export function runCredentialHelper(name: string, server: string, env: Readonly<Record<string, string | undefined>>): Promise<RegistryCredential | undefined> {
  if (!HELPER_NAME.test(name)) return Promise.resolve(undefined);
  return new Promise((resolve) => {
    const child = execFile(`docker-credential-${name}`, ['get'], { env, timeout: HELPER_TIMEOUT_MS, maxBuffer: 1024 * 1024 }, (error, stdout) => {
      if (error !== null) return resolve(undefined);
      try {
        const answer = JSON.parse(stdout) as { Username?: unknown; Secret?: unknown };
        if (typeof answer.Secret !== 'string' || answer.Secret === '') return resolve(undefined);
        if (answer.Username === TOKEN_USER) return resolve({ identityToken: answer.Secret });
        resolve({ username: typeof answer.Username === 'string' ? answer.Username : '', password: answer.Secret });
      } catch {
        resolve(undefined);
      }
    });
    child.stdin?.on('error', () => undefined);
    child.stdin?.end(server);
  });
}
