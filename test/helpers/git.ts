import { execFile, spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** git as the tests run it: no user or system configuration, a fixed identity, fixed dates. */
const GIT_ENV: NodeJS.ProcessEnv = {
  PATH: process.env.PATH,
  HOME: tmpdir(),
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_TERMINAL_PROMPT: '0',
  GIT_AUTHOR_NAME: 'Toolyard Test',
  GIT_AUTHOR_EMAIL: 'test@toolyard.invalid',
  GIT_COMMITTER_NAME: 'Toolyard Test',
  GIT_COMMITTER_EMAIL: 'test@toolyard.invalid',
  GIT_AUTHOR_DATE: '2025-01-01T00:00:00Z',
  GIT_COMMITTER_DATE: '2025-01-01T00:00:00Z',
};

/** Runs git in `cwd` and returns its trimmed standard output. */
export async function git(cwd: string, ...args: string[]): Promise<string> {
  const { stdout } = await run('git', args, { cwd, env: GIT_ENV, encoding: 'utf8' });
  return stdout.trim();
}

export interface TestRepository {
  /** The working directory, usable as a repository path or `file://` URL. */
  dir: string;
  /** Writes the files (paths relative to the repository), commits them on the current branch and returns the commit id. */
  commit(files: Record<string, string>, message?: string): Promise<string>;
  /** Creates a branch at the current commit and switches to it. */
  branch(name: string): Promise<void>;
  /** Switches to an existing branch. */
  checkout(name: string): Promise<void>;
  /** An annotated tag at the current commit. */
  tag(name: string): Promise<void>;
}

/** A temporary directory removed by `dispose`. */
export interface TempDir {
  path: string;
  dispose(): Promise<void>;
}

export async function createTempDir(prefix = 'toolyard-test-'): Promise<TempDir> {
  const path = await mkdtemp(join(tmpdir(), prefix));
  return { path, dispose: () => rm(path, { recursive: true, force: true }) };
}

/** A new repository with `defaultBranch` checked out and no commits yet. */
export async function createRepository(dir: string, defaultBranch = 'main'): Promise<TestRepository> {
  await mkdir(dir, { recursive: true });
  await git(dir, 'init', '--quiet', '--initial-branch', defaultBranch);
  let count = 0;
  return {
    dir,
    async commit(files, message) {
      for (const [path, content] of Object.entries(files)) {
        await mkdir(dirname(join(dir, path)), { recursive: true });
        await writeFile(join(dir, path), content);
      }
      await git(dir, 'add', '--all');
      count += 1;
      await git(dir, 'commit', '--quiet', '--allow-empty', '-m', message ?? `commit ${count}`);
      return git(dir, 'rev-parse', 'HEAD');
    },
    async branch(name) {
      await git(dir, 'checkout', '--quiet', '-b', name);
    },
    async checkout(name) {
      await git(dir, 'checkout', '--quiet', name);
    },
    async tag(name) {
      await git(dir, 'tag', '-a', name, '-m', `tag ${name}`);
    },
  };
}

export interface GitHttpServer {
  /** Base URL; a repository `<root>/name.git` is at `${url}/name.git`. */
  url: string;
  /** The Authorization header of every request, in order (undefined when absent). */
  authorizations: (string | undefined)[];
  close(): Promise<void>;
}

/**
 * Serves the bare repositories under `root` over smart HTTP by running `git http-backend` as a CGI
 * script, behind HTTP basic authentication with one user name and password.
 */
export async function serveGitOverHttp(options: { root: string; username: string; password: string }): Promise<GitHttpServer> {
  const expected = `Basic ${Buffer.from(`${options.username}:${options.password}`).toString('base64')}`;
  const authorizations: (string | undefined)[] = [];
  const server = createServer((request, response) => {
    authorizations.push(request.headers.authorization);
    if (request.headers.authorization !== expected) {
      request.resume();
      response.writeHead(401, { 'www-authenticate': 'Basic realm="toolyard-test"', 'content-type': 'text/plain' });
      response.end('authentication required\n');
      return;
    }
    runHttpBackend(options.root, request, response);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    authorizations,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function runHttpBackend(root: string, request: IncomingMessage, response: ServerResponse): void {
  const url = new URL(request.url ?? '/', 'http://localhost');
  const header = (name: string) => {
    const value = request.headers[name];
    return Array.isArray(value) ? value.join(', ') : (value ?? '');
  };
  const child = spawn('git', ['http-backend'], {
    env: {
      ...GIT_ENV,
      GIT_PROJECT_ROOT: root,
      GIT_HTTP_EXPORT_ALL: '1',
      PATH_INFO: decodeURIComponent(url.pathname),
      QUERY_STRING: url.search.replace(/^\?/, ''),
      REQUEST_METHOD: request.method ?? 'GET',
      CONTENT_TYPE: header('content-type'),
      HTTP_CONTENT_ENCODING: header('content-encoding'),
      // protocol v2 is asked for through this header; the CGI reads it from the environment
      GIT_PROTOCOL: header('git-protocol'),
      REMOTE_USER: 'test',
      REMOTE_ADDR: '127.0.0.1',
    },
    stdio: ['pipe', 'pipe', 'ignore'],
  });
  // the backend may exit before reading the whole request (a refused push, a bad path)
  child.stdin.on('error', () => undefined);
  request.pipe(child.stdin);
  let head = Buffer.alloc(0);
  let headersSent = false;
  child.stdout.on('data', (chunk: Buffer) => {
    if (headersSent) {
      response.write(chunk);
      return;
    }
    head = Buffer.concat([head, chunk]);
    const crlf = head.indexOf('\r\n\r\n');
    const lf = head.indexOf('\n\n');
    const end = crlf !== -1 && (lf === -1 || crlf < lf) ? { at: crlf, length: 4 } : lf !== -1 ? { at: lf, length: 2 } : undefined;
    if (!end) return;
    let status = 200;
    const headers: Record<string, string> = {};
    for (const line of head.subarray(0, end.at).toString('latin1').split(/\r?\n/)) {
      const colon = line.indexOf(':');
      if (colon === -1) continue;
      const name = line.slice(0, colon).trim().toLowerCase();
      const value = line.slice(colon + 1).trim();
      if (name === 'status') status = Number.parseInt(value, 10);
      else headers[name] = value;
    }
    response.writeHead(status, headers);
    headersSent = true;
    response.write(head.subarray(end.at + end.length));
  });
  child.on('close', () => {
    if (!headersSent) response.writeHead(500);
    response.end();
  });
  child.on('error', () => {
    if (!response.headersSent) response.writeHead(500);
    response.end();
  });
}
