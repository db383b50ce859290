import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { catalogFromBytes, SourceFetchError, type SourceProvider } from './provider.js';

const run = promisify(execFile);

export interface GitSourceOptions {
  repository: string;
  branch?: string | undefined;
  tag?: string | undefined;
  commit?: string | undefined;
  path: string;
  auth?: { username: string; passwordFile: string } | undefined;
  timeoutMs: number;
}

/**
 * Reads one file of a repository with the git command: a shallow fetch of the wanted ref into an
 * empty temporary repository, then the blob at `path`. Credentials travel in git's environment
 * configuration, never on the command line where other users could read them.
 */
export function createGitSource(options: GitSourceOptions): SourceProvider {
  return {
    async fetch({ signal }) {
      const dir = await mkdtemp(join(tmpdir(), 'toolyard-git-'));
      try {
        const env = await gitEnvironment(options);
        const git = async (...args: string[]) => {
          try {
            const { stdout } = await run('git', args, {
              cwd: dir,
              env,
              signal,
              timeout: options.timeoutMs,
              maxBuffer: 256 * 1024 * 1024,
              encoding: 'buffer',
            });
            return stdout;
          } catch (error) {
            throw new SourceFetchError(describeGitFailure(error, options));
          }
        };
        await git('init', '--quiet');
        const ref = fetchRef(options);
        const fullCommit = options.commit !== undefined && options.commit.length === 40;
        if (options.commit !== undefined && !fullCommit) {
          // an abbreviated commit cannot be asked for by name: fetch the refs and resolve it here
          await git('fetch', '--quiet', '--no-tags', options.repository, '+refs/heads/*:refs/remotes/origin/*', '+refs/tags/*:refs/tags/*');
        } else {
          await git('fetch', '--quiet', '--depth', '1', '--no-tags', options.repository, ref);
        }
        const revision = options.commit !== undefined && !fullCommit ? options.commit : 'FETCH_HEAD';
        const blob = await git('cat-file', 'blob', `${revision}:${options.path}`).catch(() => {
          throw new SourceFetchError(`${options.path} does not exist at ${describeRef(options)} of ${redact(options.repository)}`);
        });
        return catalogFromBytes(blob, `${options.path} at ${describeRef(options)}`);
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
  };
}

function fetchRef(options: GitSourceOptions): string {
  if (options.commit !== undefined) return options.commit;
  if (options.tag !== undefined) return `refs/tags/${options.tag}`;
  if (options.branch !== undefined) return `refs/heads/${options.branch}`;
  return 'HEAD';
}

function describeRef(options: GitSourceOptions): string {
  if (options.commit !== undefined) return `commit ${options.commit}`;
  if (options.tag !== undefined) return `tag ${options.tag}`;
  if (options.branch !== undefined) return `branch ${options.branch}`;
  return 'the default branch';
}

async function gitEnvironment(options: GitSourceOptions): Promise<NodeJS.ProcessEnv> {
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    GIT_TERMINAL_PROMPT: '0',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_COUNT: '0',
  };
  if (options.auth) {
    let password: string;
    try {
      password = (await readFile(options.auth.passwordFile, 'utf8')).trim();
    } catch (error) {
      throw new SourceFetchError(`cannot read git.auth.passwordFile ${options.auth.passwordFile}: ${(error as NodeJS.ErrnoException).code ?? 'error'}`);
    }
    const token = Buffer.from(`${options.auth.username}:${password}`).toString('base64');
    Object.assign(env, { GIT_CONFIG_COUNT: '1', GIT_CONFIG_KEY_0: 'http.extraHeader', GIT_CONFIG_VALUE_0: `Authorization: Basic ${token}` });
  }
  return env;
}

function describeGitFailure(error: unknown, options: GitSourceOptions): string {
  const failure = error as { killed?: boolean; code?: string | number; stderr?: Buffer };
  if (failure.killed || failure.code === 'ABORT_ERR') return `git did not finish within ${options.timeoutMs / 1000}s`;
  if (failure.code === 'ENOENT') return 'the git command is not installed on this machine';
  const stderr = failure.stderr?.toString('utf8').trim().split('\n').filter(Boolean).pop() ?? 'git failed';
  return `cannot fetch ${describeRef(options)} of ${redact(options.repository)}: ${redact(stderr)}`;
}

/** Removes credentials embedded in URLs (`https://user:token@host`) from anything shown to people. */
export function redact(text: string): string {
  return text.replace(/([a-z][a-z0-9+.-]*:\/\/)[^/@\s]+@/gi, '$1***@');
}
