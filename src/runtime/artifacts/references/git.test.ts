import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SKILLS } from '../kinds.js';
import { gitResolver, parseGitReference } from './git.js';

describe('git references', () => {
  it('takes host, path, ref and folder apart', () => {
    expect(parseGitReference('git://github.com/acme/skills@v1.2.0#skills/code-review')).toEqual({ host: 'github.com', path: 'acme/skills', ref: 'v1.2.0', subdir: 'skills/code-review' });
    expect(parseGitReference('git://127.0.0.1:9418/team')).toEqual({ host: '127.0.0.1:9418', path: 'team', ref: '', subdir: '' });
    expect(parseGitReference('code-review:1.0.0')).toBeUndefined();
  });

  it('refuses what could reach git as an option or leave the repository', () => {
    expect(() => parseGitReference('git://host/acme/skills@--upload-pack=touch')).toThrow('has an unusable ref "--upload-pack=touch"');
    expect(() => parseGitReference('git://host/acme/../etc')).toThrow('has an unusable repository path');
    expect(() => parseGitReference('git://host/acme/skills#../../x')).toThrow('has an unusable folder');
    expect(() => parseGitReference('git://us er@host/x')).toThrow('has an unusable host');
  });
});

describe('fetching from a git server that fails', () => {
  let scratch: string;
  let silent: Server;
  const sockets: Socket[] = [];
  const resolver = gitResolver({ env: process.env, timeoutMs: 1_000 });
  const port = (server: Server): number => (server.address() as { port: number }).port;

  beforeAll(async () => {
    scratch = await mkdtemp(join(tmpdir(), 'toolyard-git-'));
    // accepts connections and never answers, as a hung server does
    silent = createServer((socket) => sockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  });
  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => silent.close(resolve));
    await rm(scratch, { recursive: true, force: true });
  });

  it('answers 504 when the server does not answer in time', async () => {
    await expect(resolver.resolve(`git://127.0.0.1:${port(silent)}/team`, { spec: SKILLS, scratch })).rejects.toMatchObject({
      status: 504,
      message: `fetching git://127.0.0.1:${port(silent)}/team: git did not finish in 1 s`,
    });
  });

  it('answers 502 when nothing listens', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const free = port(closed);
    await new Promise((resolve) => closed.close(resolve));
    await expect(resolver.resolve(`git://127.0.0.1:${free}/team`, { spec: SKILLS, scratch: await mkdtemp(join(scratch, 'x-')) })).rejects.toMatchObject({
      status: 502,
      message: `fetching git://127.0.0.1:${free}/team: the repository could not be fetched`,
    });
  });
});
