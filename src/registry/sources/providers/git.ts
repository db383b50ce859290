import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { SourceAccess } from '../access.js';
import { catalogFromBytes, redact, SourceFetchError, type SourceProvider } from './provider.js';

const run = promisify(execFile);

export interface GitSourceOptions {
  repository: string;
  branch?: string | undefined;
  tag?: string | undefined;
  commit?: string | undefined;
  path: string;
  auth?: { username: string; passwordFile: string } | undefined;
  timeoutMs: number;
  /** PATH and HOME for git, from the process environment the composition root passes in. */
  env: { PATH?: string | undefined; HOME?: string | undefined };
  /** What a source created through the API may reach; absent for the configuration's own sources. */
  access?: SourceAccess | undefined;
}

/**
 * Reads one file of a repository with the git command: a shallow fetch of the wanted ref into an
 * empty temporary repository, then the blob at `path`. Credentials travel in git's environment
 * configuration, never on the command line where other users could read them.
 */
export function createGitSource(options: GitSourceOptions): SourceProvider {
  return {
    async fetch({ signal }) {
      // checked at every sync: a name may resolve elsewhere, a link may point elsewhere, than when the source was created
      const refused = (await options.access?.gitProblem(options.repository)) ?? (options.auth && (await options.access?.fileProblem('git.auth.passwordFile', options.auth.passwordFile)));
      if (refused) throw new SourceFetchError(redact(refused));
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
            if (signal.aborted) throw signal.reason;
            const message = describeGitFailure(error, options);
            throw isTimeout(error) ? new GitTimeoutError(message) : new SourceFetchError(message);
          }
        };
        await git('init', '--quiet');
        const fullCommit = options.commit !== undefined && options.commit.length === 40;
        // `--` ends the options: a repository value such as `--upload-pack=...` must never be read as one
        if (options.commit !== undefined && !fullCommit) {
          // an abbreviated commit cannot be asked for by name: fetch the refs and resolve it here
          await git('fetch', '--quiet', '--no-tags', '--', options.repository, '+refs/heads/*:refs/remotes/origin/*', '+refs/tags/*:refs/tags/*');
        } else {
          await git('fetch', '--quiet', '--depth', '1', '--no-tags', '--', options.repository, fetchRef(options));
        }
        let revision = 'FETCH_HEAD';
        if (options.commit !== undefined && !fullCommit) {
          const resolved = await git('rev-parse', '--verify', '--quiet', `${options.commit}^{commit}`).catch((error: unknown) => {
            if (error instanceof GitTimeoutError) throw error;
            return undefined;
          });
          if (resolved === undefined) {
            throw new SourceFetchError(`commit ${options.commit} is not on any branch or tag of ${redact(options.repository)} (or the abbreviation is ambiguous)`);
          }
          revision = resolved.toString('utf8').trim();
        }
        const blob = await git('cat-file', 'blob', `${revision}:${options.path}`).catch((error: unknown) => {
          if (error instanceof GitTimeoutError) throw error;
          throw new SourceFetchError(`${options.path} does not exist at ${describeRef(options)} of ${redact(options.repository)}`);
        });
        return catalogFromBytes(blob, `${options.path} at ${describeRef(options)}`);
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
  };
}

class GitTimeoutError extends SourceFetchError {}

function isTimeout(error: unknown): boolean {
  const failure = error as { killed?: boolean; code?: string | number };
  return failure.killed === true || failure.code === 'ABORT_ERR';
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
    PATH: options.env.PATH,
    HOME: options.env.HOME,
    GIT_TERMINAL_PROMPT: '0',
    // the server's own git settings (credential helpers above all) must not answer for a source
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_CONFIG_COUNT: '0',
  };
  const settings: [string, string][] = [];
  if (options.access) {
    // git does its own DNS and follows its own redirects: allow only the permitted protocols, and no
    // redirect, which could lead to an address that was never checked
    settings.push(['protocol.allow', 'never'], ...options.access.gitProtocols.map((scheme): [string, string] => [`protocol.${scheme}.allow`, 'always']));
    if (!options.access.privateNetworks) settings.push(['http.followRedirects', 'false']);
  }
  if (options.auth) {
    let password: string;
    try {
      password = (await readFile(options.auth.passwordFile, 'utf8')).trim();
    } catch (error) {
      throw new SourceFetchError(`cannot read git.auth.passwordFile ${options.auth.passwordFile}: ${(error as NodeJS.ErrnoException).code ?? 'error'}`);
    }
    const token = Buffer.from(`${options.auth.username}:${password}`).toString('base64');
    settings.push(['http.extraHeader', `Authorization: Basic ${token}`]);
  }
  env.GIT_CONFIG_COUNT = String(settings.length);
  settings.forEach(([key, value], index) => {
    env[`GIT_CONFIG_KEY_${index}`] = key;
    env[`GIT_CONFIG_VALUE_${index}`] = value;
  });
  return env;
}

function describeGitFailure(error: unknown, options: GitSourceOptions): string {
  const failure = error as { code?: string | number; stderr?: Buffer };
  if (isTimeout(error)) return `git did not finish within ${options.timeoutMs / 1000}s`;
  if (failure.code === 'ENOENT') return 'the git command is not installed on this machine';
  const stderr = failure.stderr?.toString('utf8').trim() ?? '';
  const where = `cannot fetch ${describeRef(options)} of ${redact(options.repository)}`;
  // with prompts off, a refused or missing credential shows up as git failing to ask for one
  if (/terminal prompts disabled|Authentication failed|could not read (Username|Password)|HTTP 401|HTTP 403/i.test(stderr)) {
    if (options.auth) return `${where}: the server refused the credentials of user ${JSON.stringify(options.auth.username)} (check git.auth.passwordFile)`;
    if (redact(options.repository) !== options.repository) return `${where}: the server refused the credentials in the repository URL`;
    return `${where}: the repository requires authentication (set git.auth)`;
  }
  const last = stderr.split('\n').filter(Boolean).pop() ?? 'git failed';
  return `${where}: ${redact(last)}`;
}

export { redact };
