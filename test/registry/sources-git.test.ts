import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/core/telemetry/logger.js';
import { createGitSource, type GitSourceOptions } from '../../src/registry/sources/providers/git.js';
import { sha256, SourceFetchError } from '../../src/registry/sources/providers/provider.js';
import { createRepository, createTempDir, git, serveGitOverHttp, type GitHttpServer, type TempDir } from '../helpers/git.js';

const catalog = (...names: string[]) => JSON.stringify({ version: '1.0.0', data: { servers: names.map((name) => ({ name, version: '1.0.0' })) } }, null, 2);

const context = () => ({ signal: new AbortController().signal, logger: silentLogger });

async function fetchSource(options: Partial<GitSourceOptions> & { repository: string }) {
  return createGitSource({ path: 'registry.json', timeoutMs: 20_000, env: process.env, ...options }).fetch(context());
}

async function names(options: Partial<GitSourceOptions> & { repository: string }): Promise<string[]> {
  const fetched = await fetchSource(options);
  return fetched.parse().records.map((record) => record.name);
}

async function failure(options: Partial<GitSourceOptions> & { repository: string }): Promise<string> {
  const error: unknown = await fetchSource(options).then(
    () => new Error('expected the fetch to fail'),
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(SourceFetchError);
  return (error as Error).message;
}

describe('git source', () => {
  let temp: TempDir;
  let repository: string;
  let tagged: string;
  let untagged: string;
  const tipCatalog = catalog('io.example/tip', 'io.example/tip-two');

  beforeAll(async () => {
    temp = await createTempDir();
    // a default branch that is not called main, so "the default branch" has to mean the remote's HEAD
    const repo = await createRepository(join(temp.path, 'catalog'), 'trunk');
    repository = repo.dir;
    tagged = await repo.commit({ 'registry.json': catalog('io.example/tagged') });
    await repo.tag('v1.0.0');
    untagged = await repo.commit({ 'registry.json': catalog('io.example/untagged') });
    await repo.commit({ 'registry.json': tipCatalog, 'catalogs/team.json': catalog('io.example/team-only') });
    await repo.branch('staging');
    await repo.commit({ 'registry.json': catalog('io.example/staging') });
    await repo.checkout('trunk');
  });
  afterAll(() => temp.dispose());

  it('reads registry.json of the default branch', async () => {
    expect(await names({ repository })).toEqual(['io.example/tip', 'io.example/tip-two']);
  });

  it('reads a repository given as a file:// URL', async () => {
    expect(await names({ repository: `file://${repository}` })).toEqual(['io.example/tip', 'io.example/tip-two']);
  });

  it('reads a named branch', async () => {
    expect(await names({ repository, branch: 'staging' })).toEqual(['io.example/staging']);
  });

  it('reads an annotated tag', async () => {
    expect(await names({ repository, tag: 'v1.0.0' })).toEqual(['io.example/tagged']);
  });

  it('reads a full 40-character commit that no branch or tag points at', async () => {
    expect(untagged).toMatch(/^[0-9a-f]{40}$/);
    expect(await names({ repository, commit: untagged })).toEqual(['io.example/untagged']);
  });

  it('reads an abbreviated commit', async () => {
    expect(await names({ repository, commit: untagged.slice(0, 8) })).toEqual(['io.example/untagged']);
    expect(await names({ repository, commit: tagged.slice(0, 12) })).toEqual(['io.example/tagged']);
  });

  it('reads a custom path', async () => {
    expect(await names({ repository, path: 'catalogs/team.json' })).toEqual(['io.example/team-only']);
  });

  it('fingerprints the file content, so the same content gives the same fingerprint at any ref', async () => {
    const tip = await fetchSource({ repository });
    expect(tip.fingerprint).toBe(sha256(tipCatalog));
    expect((await fetchSource({ repository: `file://${repository}` })).fingerprint).toBe(tip.fingerprint);
    expect((await fetchSource({ repository, branch: 'staging' })).fingerprint).not.toBe(tip.fingerprint);
  });

  it('says which file is missing at which ref', async () => {
    expect(await failure({ repository, path: 'missing.json' })).toBe(`missing.json does not exist at the default branch of ${repository}`);
    expect(await failure({ repository, tag: 'v1.0.0', path: 'catalogs/team.json' })).toBe(`catalogs/team.json does not exist at tag v1.0.0 of ${repository}`);
  });

  it('says which branch is missing', async () => {
    const message = await failure({ repository, branch: 'no-such-branch' });
    expect(message).toMatch(new RegExp(`^cannot fetch branch no-such-branch of ${repository}: `));
    expect(message).toContain("couldn't find remote ref refs/heads/no-such-branch");
  });

  it('says which tag is missing', async () => {
    expect(await failure({ repository, tag: 'v9' })).toMatch(/^cannot fetch tag v9 of .*refs\/tags\/v9/);
  });

  it('says an abbreviated commit is unknown rather than blaming the file', async () => {
    expect(await failure({ repository, commit: 'deadbeef0' })).toBe(`commit deadbeef0 is not on any branch or tag of ${repository} (or the abbreviation is ambiguous)`);
  });

  it('says an unknown full commit cannot be fetched', async () => {
    expect(await failure({ repository, commit: 'deadbeef'.repeat(5) })).toMatch(/^cannot fetch commit deadbeefdeadbeef\w+ of /);
  });

  it('says a repository that does not exist cannot be fetched', async () => {
    expect(await failure({ repository: join(temp.path, 'nowhere') })).toMatch(/^cannot fetch the default branch of .*nowhere: /);
  });

  it('never takes the repository for a git option', async () => {
    const marker = join(temp.path, 'injected');
    const message = await failure({ repository: `--upload-pack=touch ${marker}` });
    expect(message).toMatch(/^cannot fetch the default branch of --upload-pack=/);
    expect(existsSync(marker)).toBe(false);
  });

  it('gives up on the content of a file that is not JSON without quoting it', async () => {
    const repo = await createRepository(join(temp.path, 'broken'));
    await repo.commit({ 'registry.json': 'servers: [secret-value-123]\n' });
    const fetched = await fetchSource({ repository: repo.dir });
    expect(() => fetched.parse()).toThrow(/^registry\.json at the default branch is not valid JSON/);
    expect(() => fetched.parse()).not.toThrow(/secret-value-123/);
  });
});

describe('git source over HTTP with basic auth', () => {
  const username = 'catalog-reader';
  const password = 'pa55-W0rd-only-in-the-file';
  let temp: TempDir;
  let server: GitHttpServer;
  let repository: string;
  let passwordFile: string;
  let wrongPasswordFile: string;
  const content = catalog('io.example/private-one', 'io.example/private-two');

  beforeAll(async () => {
    temp = await createTempDir();
    const repo = await createRepository(join(temp.path, 'work'));
    await repo.commit({ 'registry.json': content });
    const root = join(temp.path, 'served');
    await git(temp.path, 'clone', '--quiet', '--bare', repo.dir, join(root, 'private.git'));
    server = await serveGitOverHttp({ root, username, password });
    repository = `${server.url}/private.git`;
    passwordFile = join(temp.path, 'password');
    wrongPasswordFile = join(temp.path, 'wrong-password');
    // a trailing newline, as editors and `echo` leave it, is not part of the password
    await writeFile(passwordFile, `${password}\n`);
    await writeFile(wrongPasswordFile, 'not-the-password\n');
  });
  afterAll(async () => {
    await server.close();
    await temp.dispose();
  });

  it('fetches with the password read from passwordFile', async () => {
    const fetched = await fetchSource({ repository, auth: { username, passwordFile } });
    expect(fetched.parse().records.map((record) => record.name)).toEqual(['io.example/private-one', 'io.example/private-two']);
    expect(server.authorizations).toContain(`Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`);
  });

  it('keeps the password out of the fingerprint', async () => {
    const fetched = await fetchSource({ repository, auth: { username, passwordFile } });
    expect(fetched.fingerprint).toBe(sha256(content));
    expect(fetched.fingerprint).not.toContain(password);
  });

  it('fails with a wrong password and names neither password', async () => {
    const message = await failure({ repository, auth: { username, passwordFile: wrongPasswordFile } });
    expect(message).toBe(`cannot fetch the default branch of ${repository}: the server refused the credentials of user "catalog-reader" (check git.auth.passwordFile)`);
    expect(message).not.toContain(password);
    expect(message).not.toContain('not-the-password');
    expect(message).not.toContain(Buffer.from(`${username}:not-the-password`).toString('base64'));
  });

  it('fails without credentials, saying they are needed', async () => {
    expect(await failure({ repository })).toBe(`cannot fetch the default branch of ${repository}: the repository requires authentication (set git.auth)`);
  });

  it('names a password file it cannot read without guessing at its content', async () => {
    const missing = join(temp.path, 'no-such-file');
    expect(await failure({ repository, auth: { username, passwordFile: missing } })).toBe(`cannot read git.auth.passwordFile ${missing}: ENOENT`);
  });

  it('hides credentials written into the repository URL', async () => {
    const withCredentials = repository.replace('http://', `http://${username}:wrong-inline-secret@`);
    const message = await failure({ repository: withCredentials });
    expect(message).toBe(`cannot fetch the default branch of ${repository.replace('http://', 'http://***@')}: the server refused the credentials in the repository URL`);
    expect(message).not.toContain('wrong-inline-secret');
  });
});
