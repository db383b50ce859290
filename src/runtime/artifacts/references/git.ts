import { execFile } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { BadGatewayError, InvalidInputError, NotFoundError, UnauthenticatedError } from '../../../core/errors.js';
import { findPrivateAddress, privateHostLiteral } from '../../../core/net/address-guard.js';
import { GatewayTimeoutError } from '../../registry/errors.js';
import { extractEntries, readTar } from '../tar.js';
import type { ReferenceResolver } from './resolver.js';

/** `git://host/path[@ref][#subdir]` taken apart. */
export interface GitReference {
  host: string;
  path: string;
  ref: string;
  subdir: string;
}

const COMMIT = /^[0-9a-f]{40}$/;
const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);
const CLONE_TIMEOUT_MS = 120_000;
const MAX_ARCHIVE_BYTES = 600 * 1024 * 1024;

export function parseGitReference(reference: string): GitReference | undefined {
  if (!reference.startsWith('git://')) return undefined;
  const rest = reference.slice('git://'.length);
  const hash = rest.indexOf('#');
  const located = hash === -1 ? rest : rest.slice(0, hash);
  const subdir = hash === -1 ? '' : rest.slice(hash + 1).replace(/^\/+|\/+$/g, '');
  const slash = located.indexOf('/');
  if (slash <= 0) throw new InvalidInputError(`git reference ${reference} must be git://host/path[@ref][#subdir]`);
  const host = located.slice(0, slash);
  const at = located.lastIndexOf('@');
  const path = at > slash ? located.slice(slash + 1, at) : located.slice(slash + 1);
  const ref = at > slash ? located.slice(at + 1) : '';
  const safe = /^[\w.~-]+(\/[\w.~-]+)*$/;
  if (!safe.test(path) || path.split('/').includes('..')) throw new InvalidInputError(`git reference ${reference} has an unusable repository path "${path}"`);
  if (ref !== '' && (!/^[\w./-]+$/.test(ref) || ref.startsWith('-') || ref.includes('..'))) throw new InvalidInputError(`git reference ${reference} has an unusable ref "${ref}"`);
  if (subdir !== '' && (!safe.test(subdir) || subdir.split('/').includes('..'))) throw new InvalidInputError(`git reference ${reference} has an unusable folder "${subdir}"`);
  if (!/^[\w.-]+(:\d+)?$|^\[[0-9a-fA-F:]+\](:\d+)?$/.test(host)) throw new InvalidInputError(`git reference ${reference} has an unusable host "${host}"`);
  return { host, path, ref, subdir };
}

export const formatGitReference = (git: GitReference): string => `git://${git.host}/${git.path}${git.ref === '' ? '' : `@${git.ref}`}${git.subdir === '' ? '' : `#${git.subdir}`}`;

/** The URL git fetches: the git protocol on a loopback host (tests, local mirrors), https elsewhere; other private addresses are refused. */
async function remoteUrl(git: GitReference): Promise<string> {
  const hostname = git.host.replace(/:\d+$/, '');
  if (LOOPBACK.has(hostname)) return `git://${git.host}/${git.path}`;
  const literal = privateHostLiteral(hostname) ?? (await findPrivateAddress(hostname).catch(() => undefined));
  if (literal !== undefined) throw new InvalidInputError(`git host ${git.host} is a private address (${literal}); only loopback and public hosts are allowed`);
  return `https://${git.host}/${git.path}`;
}

interface GitRun {
  stdout: Buffer;
}

/** Runs git without a shell, with no prompts and no user or system configuration; failures become upstream errors. */
function runGit(args: string[], env: Record<string, string>, what: string, timeoutMs: number): Promise<GitRun> {
  return new Promise((resolve, reject) => {
    execFile('git', args, { env, encoding: 'buffer', timeout: timeoutMs, maxBuffer: MAX_ARCHIVE_BYTES }, (error, stdout, stderr) => {
      if (error === null) return resolve({ stdout });
      if (error.killed === true) return reject(new GatewayTimeoutError(`${what}: git did not finish in ${timeoutMs / 1000} s`));
      reject(upstreamError(stderr.toString('utf8'), what));
    });
  });
}

/** Maps what git said to the statuses of clarification point 15, without repeating URLs (which may carry credentials). */
function upstreamError(stderr: string, what: string): Error {
  const said = stderr.toLowerCase();
  if (/could not read username|authentication failed|terminal prompts disabled|403/.test(said)) return new UnauthenticatedError(`${what}: the repository needs credentials`);
  if (/couldn't find remote ref|not a valid object name|not our ref|no such ref|not a tree object|does not appear to be a git repository|repository not found|not exported|access denied|\b404\b|invalid path|did not match any/.test(said)) {
    return new NotFoundError(`${what}: the repository, ref or folder does not exist`);
  }
  return new BadGatewayError(`${what}: the repository could not be fetched`);
}

/**
 * `git://` references: a shallow fetch of the one commit by the system git, then `git archive` of
 * the folder read through the same extraction limits as any artifact (so links are refused).
 */
export function gitResolver(options: { env: Record<string, string | undefined>; timeoutMs?: number }): ReferenceResolver {
  const timeoutMs = options.timeoutMs ?? CLONE_TIMEOUT_MS;
  const run = (args: string[], env: Record<string, string>, what: string): Promise<GitRun> => runGit(args, env, what, timeoutMs);
  return {
    resolve: async (reference, { scratch }) => {
      const git = parseGitReference(reference);
      if (git === undefined) return undefined;
      const url = await remoteUrl(git);
      const repo = join(scratch, 'repo.git');
      const env = { PATH: options.env.PATH ?? '', HOME: scratch, GIT_TERMINAL_PROMPT: '0', GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null', LC_ALL: 'C' };
      const what = `fetching ${formatGitReference({ ...git, subdir: '' })}`;
      await run(['init', '-q', '--bare', repo], env, what);
      await run(['--git-dir', repo, 'fetch', '-q', '--depth', '1', '--no-tags', url, git.ref === '' ? 'HEAD' : git.ref], env, what);
      const commit = (await run(['--git-dir', repo, 'rev-parse', 'FETCH_HEAD^{commit}'], env, what)).stdout.toString('utf8').trim();
      if (!COMMIT.test(commit)) throw new BadGatewayError(`${what}: git did not name the fetched commit`);
      const tree = git.subdir === '' ? commit : `${commit}:${git.subdir}`;
      const archive = await run(['--git-dir', repo, 'archive', '--format=tar', tree], env, `${what} (folder ${git.subdir === '' ? '/' : git.subdir})`);
      const dir = join(scratch, 'tree', git.subdir.split('/').at(-1) || git.path.split('/').at(-1) || 'artifact');
      await mkdir(dir, { recursive: true });
      await extractEntries(readTar(archive.stdout), dir);
      return { dir, reference: formatGitReference({ ...git, ref: commit }), digest: commit, tag: '', provenance: null, unsigned: true };
    },
  };
}
