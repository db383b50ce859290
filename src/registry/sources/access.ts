import { realpath } from 'node:fs/promises';
import type { LookupFunction } from 'node:net';
import { basename, dirname, resolve, sep } from 'node:path';
import type { Dispatcher } from 'undici';
import { createGuardedLookup, findPrivateAddress, privateHostLiteral } from '../../core/net/address-guard.js';
import type { SourceDefinition } from './definition.js';

/** The `sourceAccess` block of the configuration. */
export interface SourceAccessConfig {
  filePaths: string[];
  privateNetworks: boolean;
  gitSchemes: string[];
}

/**
 * What a source created through the admin API may read: files under `filePaths`, hosts on public
 * addresses unless `privateNetworks`, git remotes of `gitSchemes`. Sources of the configuration file
 * are the operator's own and get no policy at all.
 */
export interface SourceAccess {
  /** The problems of a definition as `key: message` (an empty list when it may be created). */
  problems(definition: SourceDefinition): Promise<string[]>;
  /** Why a file may not be read, or undefined; checked again at every sync, as links can change. */
  fileProblem(key: string, path: string): Promise<string | undefined>;
  /** Why a git remote may not be fetched from, or undefined. */
  gitProblem(repository: string): Promise<string | undefined>;
  /** Why a URL (an endpoint or a redirect target) may not be asked, or undefined; no DNS here. */
  urlProblem(url: URL): string | undefined;
  /** The git protocols allowed, for git's own `protocol.allow` setting. */
  gitProtocols: readonly string[];
  /** Connections through it refuse private DNS answers; undefined when private networks are allowed. */
  dispatcher(): Promise<Dispatcher | undefined>;
  privateNetworks: boolean;
}

const PRIVATE_NETWORKS_HINT = 'sources created through the API may not reach loopback, private or link-local addresses (set sourceAccess.privateNetworks: true in the server configuration to allow it)';

export function describePrivateAddress(host: string, address: string): string {
  return `${host} resolves to the private address ${address}; ${PRIVATE_NETWORKS_HINT}`;
}

/** The scheme git would use for a repository value: `https`, `ssh` (also `user@host:path`), `file` (also a local path). */
export function gitSchemeOf(repository: string): { scheme: string; host: string | undefined; path: string | undefined } {
  const url = /^([a-z][a-z0-9+.-]*):\/\/([^/]*)(.*)$/i.exec(repository);
  if (url) {
    const scheme = (url[1] ?? '').toLowerCase();
    if (scheme === 'file') return { scheme, host: undefined, path: decodeURIComponent(url[3] ?? '') };
    try {
      return { scheme, host: new URL(repository).hostname, path: undefined };
    } catch {
      return { scheme, host: (url[2] ?? '').replace(/^.*@/, '').replace(/:\d*$/, ''), path: undefined };
    }
  }
  // `transport::address` runs git-remote-<transport>, which may be any program (ext:: runs a command)
  const helper = /^([a-z][a-z0-9+.-]*)::/i.exec(repository);
  if (helper) return { scheme: (helper[1] ?? '').toLowerCase(), host: undefined, path: undefined };
  // scp-like syntax: a colon before any slash
  const scp = /^(?:[^@/:]+@)?(\[[^\]]+\]|[^/:]+):/.exec(repository);
  if (scp) return { scheme: 'ssh', host: (scp[1] ?? '').replace(/^\[|\]$/g, ''), path: undefined };
  return { scheme: 'file', host: undefined, path: repository };
}

async function realLocation(path: string): Promise<string> {
  const absolute = resolve(path);
  try {
    return await realpath(absolute);
  } catch {
    // a file that does not exist yet: its directory decides where it would be read from
    try {
      return resolve(await realpath(dirname(absolute)), basename(absolute));
    } catch {
      return absolute;
    }
  }
}

function isUnder(path: string, directory: string): boolean {
  return path === directory || path.startsWith(directory.endsWith(sep) ? directory : directory + sep);
}

export function createSourceAccess(config: SourceAccessConfig, options: { lookup?: LookupFunction } = {}): SourceAccess {
  // undici loads when a source first reaches the network, not when the server starts
  let guarded: Promise<Dispatcher> | undefined;
  const dispatcher = async (): Promise<Dispatcher | undefined> => {
    if (config.privateNetworks) return undefined;
    guarded ??= import('undici').then(
      ({ Agent }) => new Agent({ connect: { lookup: createGuardedLookup({ describe: describePrivateAddress, ...(options.lookup && { lookup: options.lookup }) }) } }),
    );
    return guarded;
  };

  async function fileProblem(key: string, path: string): Promise<string | undefined> {
    if (config.filePaths.length === 0) {
      return `${key}: sources created through the API may not read files on the server (add the directory to sourceAccess.filePaths in the server configuration to allow it)`;
    }
    // real paths on both sides: `..` and symbolic links must not lead out of an allowed directory
    const location = await realLocation(path);
    const allowed = await Promise.all(config.filePaths.map(realLocation));
    if (allowed.some((directory) => isUnder(location, directory))) return undefined;
    return `${key}: ${path} is not under a directory of sourceAccess.filePaths (${config.filePaths.join(', ')}); add its directory there to allow it`;
  }

  async function hostProblem(key: string, host: string): Promise<string | undefined> {
    if (config.privateNetworks) return undefined;
    const address = await findPrivateAddress(host, options.lookup);
    return address === undefined ? undefined : `${key}: ${describePrivateAddress(host, address)}`;
  }

  async function urlHostProblem(key: string, raw: string): Promise<string | undefined> {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      return undefined; // the definition's own check names a bad URL
    }
    return hostProblem(key, url.hostname);
  }

  async function gitProblem(repository: string): Promise<string | undefined> {
    const { scheme, host, path } = gitSchemeOf(repository);
    if (!config.gitSchemes.includes(scheme)) {
      const what = path !== undefined && !/^file:/i.test(repository) ? 'a local path (scheme file)' : `the scheme ${scheme}`;
      return `git.repository: ${what} is not in sourceAccess.gitSchemes (${config.gitSchemes.join(', ') || 'none'}); add ${scheme} there to allow it`;
    }
    if (path !== undefined) return fileProblem('git.repository', path);
    if (host !== undefined) return hostProblem('git.repository', host);
    return undefined;
  }

  return {
    privateNetworks: config.privateNetworks,
    dispatcher,
    gitProtocols: config.gitSchemes,
    fileProblem,
    gitProblem,
    urlProblem(url) {
      if (config.privateNetworks) return undefined;
      const literal = privateHostLiteral(url.hostname);
      return literal === undefined ? undefined : describePrivateAddress(url.hostname, literal);
    },
    async problems(definition) {
      const found = await Promise.all([
        definition.file?.path !== undefined ? fileProblem('file.path', definition.file.path) : undefined,
        definition.file?.url !== undefined ? urlHostProblem('file.url', definition.file.url) : undefined,
        definition.api ? urlHostProblem('api.endpoint', definition.api.endpoint) : undefined,
        definition.git ? gitProblem(definition.git.repository) : undefined,
        definition.git?.auth ? fileProblem('git.auth.passwordFile', definition.git.auth.passwordFile) : undefined,
      ]);
      return found.filter((problem) => problem !== undefined);
    },
  };
}
