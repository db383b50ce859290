import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import type { LookupAddress } from 'node:dns';
import { createServer } from 'node:http';
import type { AddressInfo, LookupFunction } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Fetch } from '../../src/core/net/address-guard.js';
import { createRepository } from '../helpers/git.js';
import { createTestRegistry, registryConfig, type TestRegistry } from '../helpers/registry.js';

interface SourceBody {
  syncStatus: { phase: string; message: string; serverCount: number };
}

const catalog = (...names: string[]) => ({ version: '1.0.0', data: { servers: names.map((name) => ({ name, version: '1.0.0', description: name })) } });

/** A DNS that answers from a table; each name's answers are used in turn, the last one for good. */
function fakeLookup(table: Record<string, string[]>): LookupFunction {
  const asked = new Map<string, number>();
  return (hostname: string, _options: unknown, callback: (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void) => {
    const answers = table[hostname];
    if (answers === undefined) {
      callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }), []);
      return;
    }
    const count = asked.get(hostname) ?? 0;
    asked.set(hostname, count + 1);
    const address = answers[Math.min(count, answers.length - 1)] ?? '';
    callback(null, [{ address, family: address.includes(':') ? 6 : 4 }]);
  };
}

describe('sourceAccess: what sources created through the API may read', () => {
  let root: string;
  let allowed: string;
  let outside: string;
  let registry: TestRegistry | undefined;

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'toolyard-access-'));
    allowed = join(root, 'catalogs');
    outside = join(root, 'private');
    await mkdir(allowed);
    await mkdir(outside);
    await writeFile(join(allowed, 'catalog.json'), JSON.stringify(catalog('com.acme/allowed')));
    await writeFile(join(outside, 'secret.json'), JSON.stringify(catalog('com.acme/secret')));
  });
  afterAll(() => rm(root, { recursive: true, force: true }));
  afterEach(async () => {
    await registry?.dispose();
    registry = undefined;
  });

  const start = async (sourceAccess: Record<string, unknown>, options: { lookup?: LookupFunction; fetch?: Fetch; config?: Record<string, unknown> } = {}) => {
    registry = await createTestRegistry({ config: { sourceAccess, ...options.config }, ...(options.lookup && { lookup: options.lookup }), ...(options.fetch && { fetch: options.fetch }) });
    return registry;
  };
  const refusal = async (app: TestRegistry, name: string, definition: unknown) => {
    const response = await app.send<{ error: string }>('PUT', `/v1/sources/${name}`, definition);
    expect(response.status, JSON.stringify(definition)).toBe(400);
    expect((await app.get(`/v1/sources/${name}`)).status).toBe(404);
    return response.body.error;
  };

  describe('file paths', () => {
    it('refuses every file by default, naming sourceAccess.filePaths', async () => {
      const app = await start({});
      expect(await refusal(app, 'passwd', { file: { path: '/etc/passwd' } })).toMatch(/file\.path: .*sourceAccess\.filePaths/);
    });

    it('reads files under an allowed directory and nothing outside it', async () => {
      const app = await start({ filePaths: [allowed] });
      expect((await app.send('PUT', '/v1/sources/ok', { file: { path: join(allowed, 'catalog.json') } })).status).toBe(201);
      await app.syncNow();
      expect((await app.get<SourceBody>('/v1/sources/ok')).body.syncStatus).toMatchObject({ phase: 'complete', serverCount: 1 });
      expect(await refusal(app, 'outside', { file: { path: join(outside, 'secret.json') } })).toMatch(/is not under a directory of sourceAccess\.filePaths/);
      expect(await refusal(app, 'dots', { file: { path: `${allowed}/../private/secret.json` } })).toMatch(/sourceAccess\.filePaths/);
      expect(await refusal(app, 'prefix', { file: { path: `${allowed}-sibling/catalog.json` } })).toMatch(/sourceAccess\.filePaths/);
    });

    it('follows symbolic links before the check, when the source is created and at every sync', async () => {
      const app = await start({ filePaths: [allowed] });
      const escape = join(allowed, 'escape.json');
      await symlink(join(outside, 'secret.json'), escape);
      expect(await refusal(app, 'link', { file: { path: escape } })).toMatch(/sourceAccess\.filePaths/);
      // a link that pointed inside when the source was made and is turned outside afterwards
      const turned = join(allowed, 'turned.json');
      await symlink(join(allowed, 'catalog.json'), turned);
      expect((await app.send('PUT', '/v1/sources/turned', { file: { path: turned } })).status).toBe(201);
      await rm(turned);
      await symlink(join(outside, 'secret.json'), turned);
      await app.syncNow();
      const status = (await app.get<SourceBody>('/v1/sources/turned')).body.syncStatus;
      expect(status.phase).toBe('failed');
      expect(status.message).toMatch(/sourceAccess\.filePaths/);
      expect((await app.get<{ servers: unknown[] }>('/v1/sources/turned/entries')).body).not.toMatchObject({ servers: [expect.anything()] });
    });

    it('refuses a git password file outside the allowed directories', async () => {
      const app = await start({ filePaths: [allowed], privateNetworks: false });
      const error = await refusal(app, 'creds', { git: { repository: 'https://93.184.216.34/catalog.git', auth: { username: 'x', passwordFile: join(outside, 'secret.json') } } });
      expect(error).toMatch(/git\.auth\.passwordFile: .*sourceAccess\.filePaths/);
    });

    it('trusts the sources of the configuration file', async () => {
      const app = await start({}, { config: { sources: [{ name: 'operator', file: { path: join(outside, 'secret.json') } }] } });
      await app.syncNow();
      expect((await app.get<SourceBody>('/v1/sources/operator')).body.syncStatus).toMatchObject({ phase: 'complete', serverCount: 1 });
    });
  });

  describe('private networks', () => {
    it('refuses loopback, private and link-local addresses by default, naming sourceAccess.privateNetworks', async () => {
      const app = await start({});
      for (const [index, definition] of [
        { api: { endpoint: 'http://127.0.0.1:9/' } },
        { api: { endpoint: 'http://169.254.169.254/latest' } },
        { api: { endpoint: 'http://[::1]:9/' } },
        { api: { endpoint: 'http://localhost:9/' } },
        { file: { url: 'http://10.1.2.3/catalog.json' } },
        { file: { url: 'http://[fd00::1]/catalog.json' } },
        { git: { repository: 'https://192.168.1.10/catalog.git' } },
      ].entries()) {
        expect(await refusal(app, `private-${index}`, definition)).toMatch(/private address .*sourceAccess\.privateNetworks/);
      }
    });

    it('refuses a DNS name that resolves to a private address', async () => {
      const app = await start({}, { lookup: fakeLookup({ 'catalog.internal.test': ['10.0.0.7'], 'git.internal.test': ['fe80::1'] }) });
      expect(await refusal(app, 'named', { api: { endpoint: 'https://catalog.internal.test/' } })).toMatch(/catalog\.internal\.test resolves to the private address 10\.0\.0\.7.*sourceAccess\.privateNetworks/);
      expect(await refusal(app, 'named-file', { file: { url: 'https://catalog.internal.test/c.json' } })).toMatch(/file\.url: .*sourceAccess\.privateNetworks/);
      expect(await refusal(app, 'named-git', { git: { repository: 'https://git.internal.test/c.git' } })).toMatch(/git\.repository: .*fe80::1/);
    });

    it('checks the DNS answer again when connecting, so a name re-pointed after the check is refused', async () => {
      const reached: string[] = [];
      const server = createServer((request, response) => {
        reached.push(request.url ?? '');
        response.end(JSON.stringify({ servers: [], metadata: {} }));
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      try {
        const port = (server.address() as AddressInfo).port;
        // public when the source is created, loopback when the sync connects
        const app = await start({}, { lookup: fakeLookup({ 'catalog.rebind.test': ['93.184.216.34', '127.0.0.1'] }) });
        expect((await app.send('PUT', '/v1/sources/rebind', { api: { endpoint: `http://catalog.rebind.test:${port}/`, timeout: '2s' } })).status).toBe(201);
        await app.syncNow();
        const status = (await app.get<SourceBody>('/v1/sources/rebind')).body.syncStatus;
        expect(status.phase).toBe('failed');
        expect(status.message).toMatch(/catalog\.rebind\.test resolves to the private address 127\.0\.0\.1.*sourceAccess\.privateNetworks/);
        expect(reached).toEqual([]);
      } finally {
        server.close();
      }
    });

    it('refuses a redirect to a private address during a sync, with the reason in the sync status', async () => {
      const asked: string[] = [];
      const redirecting = ((input: URL) => {
        asked.push(input.href);
        return Promise.resolve(new Response(null, { status: 302, headers: { location: 'http://169.254.169.254/latest/meta-data' } }));
      }) as unknown as Fetch;
      const app = await start({}, { fetch: redirecting });
      expect((await app.send('PUT', '/v1/sources/moved', { file: { url: 'http://93.184.216.34/catalog.json' } })).status).toBe(201);
      await app.syncNow();
      const status = (await app.get<SourceBody>('/v1/sources/moved')).body.syncStatus;
      expect(status.phase).toBe('failed');
      expect(status.message).toMatch(/redirected to http:\/\/169\.254\.169\.254\/latest\/meta-data, which was refused: .*sourceAccess\.privateNetworks/);
      // refused before it was asked, and not retried
      expect(asked).toEqual(['http://93.184.216.34/catalog.json']);
    });

    it('reaches private addresses and follows redirects there when privateNetworks is true', async () => {
      const redirecting = ((input: URL) =>
        Promise.resolve(
          input.hostname === '93.184.216.34'
            ? new Response(null, { status: 302, headers: { location: 'http://10.0.0.7/catalog.json' } })
            : new Response(JSON.stringify(catalog('com.acme/inside')), { status: 200 }),
        )) as unknown as Fetch;
      const app = await start({ privateNetworks: true }, { fetch: redirecting });
      expect((await app.send('PUT', '/v1/sources/inside', { file: { url: 'http://93.184.216.34/catalog.json' } })).status).toBe(201);
      expect((await app.send('PUT', '/v1/sources/direct', { api: { endpoint: 'http://10.0.0.7/' } })).status).toBe(201);
      await app.syncNow();
      expect((await app.get<SourceBody>('/v1/sources/inside')).body.syncStatus).toMatchObject({ phase: 'complete', serverCount: 1 });
    });
  });

  describe('git schemes', () => {
    it('refuses local paths, file://, ssh and remote helpers by default, naming sourceAccess.gitSchemes', async () => {
      const app = await start({ filePaths: [root] });
      for (const [index, repository] of [join(root, 'repo'), `file://${join(root, 'repo')}`, 'ssh://git@93.184.216.34/catalog.git', 'git@93.184.216.34:catalog.git', 'http://93.184.216.34/catalog.git', 'ext::sh -c touch% /tmp/pwned'].entries()) {
        expect(await refusal(app, `git-${index}`, { git: { repository } })).toMatch(/git\.repository: .* is not in sourceAccess\.gitSchemes \(https\)/);
      }
      expect((await app.send('PUT', '/v1/sources/public', { git: { repository: 'https://93.184.216.34/catalog.git' } })).status).toBe(201);
    });

    it('reads a local repository only with the file scheme and under an allowed directory', async () => {
      const repo = await createRepository(join(allowed, 'repo'), 'main');
      await repo.commit({ 'registry.json': JSON.stringify(catalog('com.acme/from-git')) });
      const elsewhere = await createRepository(join(outside, 'repo'), 'main');
      await elsewhere.commit({ 'registry.json': JSON.stringify(catalog('com.acme/secret')) });
      const app = await start({ filePaths: [allowed], gitSchemes: ['https', 'file'] });
      expect((await app.send('PUT', '/v1/sources/local', { git: { repository: repo.dir } })).status).toBe(201);
      expect(await refusal(app, 'elsewhere', { git: { repository: `file://${elsewhere.dir}` } })).toMatch(/sourceAccess\.filePaths/);
      await app.syncNow();
      expect((await app.get<SourceBody>('/v1/sources/local')).body.syncStatus).toMatchObject({ phase: 'complete', serverCount: 1 });
    });
  });

  it('refuses a change that breaks a rule, keeping the source as it was', async () => {
    const app = await start({ filePaths: [allowed] });
    expect((await app.send('PUT', '/v1/sources/kept', { file: { path: join(allowed, 'catalog.json') } })).status).toBe(201);
    const changed = await app.send<{ error: string }>('PUT', '/v1/sources/kept', { file: { path: join(outside, 'secret.json') } });
    expect(changed.status).toBe(400);
    expect((await app.get<{ sourceConfig: unknown }>('/v1/sources/kept')).body.sourceConfig).toEqual({ path: join(allowed, 'catalog.json') });
  });

  it('validates the block when the server starts, naming the key', () => {
    expect(() => registryConfig({ sourceAccess: { gitSchemes: ['https', 'gopher'] } })).toThrow(/sourceAccess\.gitSchemes\[1\]: "gopher" is not one of/);
    expect(() => registryConfig({ sourceAccess: { privateNetworks: 'yes' } })).toThrow(/sourceAccess\.privateNetworks/);
    expect(() => registryConfig({ sourceAccess: { filePaths: [''] } })).toThrow(/sourceAccess\.filePaths/);
    expect(registryConfig({ sourceAccess: {} }).sourceAccess).toEqual({ filePaths: [], privateNetworks: false, gitSchemes: ['https'] });
  });
});
