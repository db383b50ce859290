import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from '../../core/net/free-port.js';
import { writeTree } from './artifacts-testing.js';

const GIT_ENV = { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null', GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@example.com', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@example.com' };

export const git = (dir: string, ...args: string[]): string => execFileSync('git', args, { cwd: dir, env: GIT_ENV, encoding: 'utf8' }).trim();

/** Creates a repository at `dir` (branch main) with the files committed; returns the commit. */
export async function commitTree(dir: string, files: Record<string, string>, message = 'change'): Promise<string> {
  await writeTree(dir, files);
  if (!existsSync(join(dir, '.git'))) git(dir, 'init', '-q', '-b', 'main');
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', message);
  return git(dir, 'rev-parse', 'HEAD');
}

/** `git daemon` serving every repository under `base` on a loopback port, as git:// references reach it. */
export interface GitDaemon {
  host: string;
  port: number;
  stop: () => Promise<void>;
}

/** `port`: serve again where a stopped daemon served, so references to it still reach it. */
export async function startGitDaemon(base: string, port?: number): Promise<GitDaemon> {
  port ??= await freePort();
  const child: ChildProcess = spawn('git', ['daemon', '--export-all', `--base-path=${base}`, '--listen=127.0.0.1', `--port=${port}`, '--reuseaddr', base], { env: GIT_ENV, stdio: 'ignore' });
  for (let attempt = 0; attempt < 100; attempt++) {
    const up = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1', () => {
        socket.end();
        resolve(true);
      }).on('error', () => resolve(false));
    });
    if (up) break;
    await sleep(50);
  }
  return {
    host: `127.0.0.1:${port}`,
    port,
    stop: async () => {
      child.kill();
      await new Promise((resolve) => child.once('exit', resolve));
    },
  };
}
