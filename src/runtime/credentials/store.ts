import { readFile } from 'node:fs/promises';
import { runCredentialHelper } from './helper.js';

/** A registry login: a user name and password (or personal token), or an OAuth2 identity (refresh) token. */
export type RegistryCredential = { username: string; password: string } | { identityToken: string };

/** Looks up the login for a registry host (and repository, for Podman's per-repository entries). */
export interface RegistryCredentials {
  find: (host: string, repository?: string) => Promise<RegistryCredential | undefined>;
}

interface AuthEntry {
  auth?: unknown;
  username?: unknown;
  password?: unknown;
  identitytoken?: unknown;
}

interface AuthFile {
  auths?: Record<string, AuthEntry>;
  credHelpers?: Record<string, string>;
  credsStore?: string;
}

/** Docker Hub is stored under its v1 index URL, whatever name the image uses. */
const DOCKER_HUB = new Set(['docker.io', 'index.docker.io', 'registry-1.docker.io']);
const HUB_KEY = 'https://index.docker.io/v1/';

const canonicalHost = (host: string): string => (DOCKER_HUB.has(host) ? 'docker.io' : host);

/** The server name logins of a registry are stored and asked under. */
export const serverAddress = (host: string): string => (DOCKER_HUB.has(host) ? HUB_KEY : host);

/** `https://host/v1/` or `http://host` → `host`; Podman's `host/ns/repo` keys keep their path. */
function normalizeKey(key: string): string {
  const isUrl = /^https?:\/\//.test(key);
  const bare = key.replace(/^https?:\/\//, '').replace(/\/+$/, '');
  const slash = bare.indexOf('/');
  if (slash < 0) return canonicalHost(bare);
  return canonicalHost(bare.slice(0, slash)) + (isUrl ? '' : bare.slice(slash));
}

async function readAuthFile(path: string): Promise<AuthFile | undefined> {
  try {
    const parsed = JSON.parse(await readFile(path, 'utf8')) as unknown;
    return typeof parsed === 'object' && parsed !== null ? parsed : undefined;
  } catch {
    // a file that is missing or that another tool is halfway through writing holds no credentials for us
    return undefined;
  }
}

function fromEntry(entry: AuthEntry): RegistryCredential | undefined {
  if (typeof entry.identitytoken === 'string' && entry.identitytoken !== '') return { identityToken: entry.identitytoken };
  if (typeof entry.auth === 'string' && entry.auth !== '') {
    const decoded = Buffer.from(entry.auth, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon > 0) return { username: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
  }
  if (typeof entry.username === 'string' && typeof entry.password === 'string' && entry.username !== '') return { username: entry.username, password: entry.password };
  return undefined;
}

/**
 * The keys of `auths` that apply to `host/repository`, most specific first: a repository entry
 * (`host/ns/repo`, then `host/ns`), then the host's own.
 */
function matchingKeys(file: AuthFile, host: string, repository: string): string[] {
  const wanted = canonicalHost(host);
  const scoped = repository === '' ? [] : repository.split('/').map((_, index, parts) => `${wanted}/${parts.slice(0, parts.length - index).join('/')}`);
  const order = [...scoped, wanted];
  return Object.keys(file.auths ?? {})
    .map((key) => ({ key, rank: order.indexOf(normalizeKey(key)) }))
    .filter(({ rank }) => rank >= 0)
    .sort((a, b) => a.rank - b.rank)
    .map(({ key }) => key);
}

/**
 * Credentials as `docker login` and `podman login` left them: the first file that yields credentials
 * for the host answers. Within a file, a `credHelpers` entry for the host wins, then the `auths` entry, then
 * the `credsStore` helper. Files are read at each look-up, so a login made while the runtime runs counts.
 */
export function createRegistryCredentials(options: { files: readonly string[]; env: Readonly<Record<string, string | undefined>> }): RegistryCredentials {
  return {
    find: async (host, repository = '') => {
      const server = serverAddress(host);
      for (const path of options.files) {
        const file = await readAuthFile(path);
        if (file === undefined) continue;
        const helper = Object.entries(file.credHelpers ?? {}).find(([key]) => normalizeKey(key) === canonicalHost(host))?.[1];
        const helped = helper === undefined ? undefined : await runCredentialHelper(helper, server, options.env);
        if (helped !== undefined) return helped;
        for (const key of matchingKeys(file, host, repository)) {
          const found = fromEntry(file.auths?.[key] ?? {});
          if (found !== undefined) return found;
        }
        if (typeof file.credsStore === 'string' && file.credsStore !== '') {
          const stored = await runCredentialHelper(file.credsStore, server, options.env);
          if (stored !== undefined) return stored;
        }
      }
      return undefined;
    },
  };
}

/**
 * `{username,password,serveraddress}` or `{identitytoken}` as the Engine API's `X-Registry-Auth`: base64url
 * with its `=` padding, which Docker and Podman decode strictly (Node's `base64url` leaves it out).
 */
export function engineAuthHeader(credential: RegistryCredential, server: string): string {
  const config = 'identityToken' in credential ? { identitytoken: credential.identityToken, serveraddress: server } : { username: credential.username, password: credential.password, serveraddress: server };
  return Buffer.from(JSON.stringify(config)).toString('base64').replace(/\+/g, '-').replace(/\//g, '_');
}
