import { access, lstat, mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { InvalidInputError, NotFoundError } from '../../src/core/errors.js';
import { createClientTestbed, EVERYTHING, NOTES, type ClientTestbed } from '../../src/runtime/clients/service-testing.js';

const PAPERS = { name: 'papers', url: 'http://127.0.0.1:41003/mcp', transport: 'streamable-http' as const, group: 'research' };
const servers = async (bed: ClientTestbed) => Object.keys((JSON.parse(await bed.read('cursor')) as { mcpServers: object }).mcpServers);
const exists = (path: string) => access(path).then(() => true, () => false);

describe('client service', () => {
  let bed: ClientTestbed;
  beforeEach(async () => {
    bed = await createClientTestbed();
    bed.running = [EVERYTHING, NOTES];
  });
  afterEach(() => bed.close());

  it('creates a missing file and its directories as 2-space JSON, and empties it again', async () => {
    await bed.service.register('cursor');
    expect(await bed.read('cursor')).toBe(
      '{\n  "mcpServers": {\n    "everything": {\n      "url": "http://127.0.0.1:41001/mcp"\n    },\n    "notes": {\n      "url": "http://127.0.0.1:41002/sse#notes"\n    }\n  }\n}\n',
    );
    await bed.service.unregister(['cursor']);
    expect(await bed.read('cursor')).toBe('{}\n');
  });

  it('creates YAML and TOML files too, and removes what it added', async () => {
    await bed.service.registerMany(['continue', 'codex']);
    expect(await bed.read('continue')).toBe(
      'mcpServers:\n  - name: everything\n    type: streamable-http\n    url: http://127.0.0.1:41001/mcp\n  - name: notes\n    type: sse\n    url: http://127.0.0.1:41002/sse#notes\n',
    );
    expect(await bed.read('codex')).toBe('[mcp_servers.everything]\nurl = "http://127.0.0.1:41001/mcp"\n\n[mcp_servers.notes]\nurl = "http://127.0.0.1:41002/sse#notes"\n');
    bed.running = [];
    await bed.service.reconcile();
    expect(await bed.read('continue')).toBe('');
    expect(await bed.read('codex')).toBe('');
  });

  it('adds the servers key when the file has none and takes it away again, byte for byte', async () => {
    const settings = '{\n  "theme": "GitHub",\n  // signed in with Google\n  "selectedAuthType": "oauth-personal"\n}\n';
    await bed.write('gemini-cli', settings);
    await bed.service.register('gemini-cli');
    expect(await bed.read('gemini-cli')).toBe(
      '{\n  "theme": "GitHub",\n  // signed in with Google\n  "selectedAuthType": "oauth-personal",\n  "mcpServers": {\n    "everything": {\n      "httpUrl": "http://127.0.0.1:41001/mcp"\n    },\n    "notes": {\n      "url": "http://127.0.0.1:41002/sse#notes"\n    }\n  }\n}\n',
    );
    await bed.service.unregister(['gemini-cli']);
    expect(await bed.read('gemini-cli')).toBe(settings);
  });

  it('keeps the servers key it added once the user has put a server of their own in it', async () => {
    await bed.service.register('cursor');
    const text = await bed.read('cursor');
    await bed.write('cursor', text.replace('"mcpServers": {', '"mcpServers": {\n    "mine": { "url": "https://example.test/mcp" },'));
    await bed.service.unregister(['cursor']);
    expect(await bed.read('cursor')).toBe('{\n  "mcpServers": {\n    "mine": { "url": "https://example.test/mcp" }\n  }\n}\n');
  });

  it('writes only the workloads of the client’s groups, and follows group changes', async () => {
    await bed.groups.write({ name: 'research', registered_clients: [] });
    bed.running = [EVERYTHING, PAPERS];
    expect(await bed.service.register('cursor', ['research'])).toEqual({ name: 'cursor', groups: ['research'] });
    expect(await servers(bed)).toEqual(['papers']);

    await bed.service.register('cursor');
    expect(await servers(bed)).toEqual(['papers', 'everything']);
    expect(await bed.service.list()).toEqual([{ name: 'cursor', groups: ['default', 'research'] }]);
    expect((await bed.groups.read('research'))?.registered_clients).toEqual(['cursor']);

    await bed.service.removeFromGroup('cursor', 'research');
    expect(await servers(bed)).toEqual(['everything']);
    expect(await bed.service.list()).toEqual([{ name: 'cursor', groups: ['default'] }]);
  });

  it('cleans up after a group that was deleted', async () => {
    await bed.groups.write({ name: 'research', registered_clients: [] });
    bed.running = [PAPERS];
    await bed.service.register('cursor', ['research']);
    await bed.groups.delete('research');
    await bed.service.reconcile();
    expect(await bed.read('cursor')).toBe('{}\n');
    expect(await bed.service.list()).toEqual([]);
  });

  it('refuses unknown client types and unknown groups without recording anything', async () => {
    const unknown = bed.service.register('notepad');
    await expect(unknown).rejects.toBeInstanceOf(InvalidInputError);
    await expect(unknown).rejects.toThrow(/notepad.*known types: claude-code, cursor/);
    await expect(bed.service.registerMany(['cursor', 'notepad'])).rejects.toBeInstanceOf(InvalidInputError);
    await expect(bed.service.register('cursor', ['default', 'nope'])).rejects.toBeInstanceOf(NotFoundError);
    await expect(bed.service.removeFromGroup('cursor', 'nope')).rejects.toBeInstanceOf(NotFoundError);
    expect(await bed.service.list()).toEqual([]);
    expect(await exists(dirname(bed.file('cursor')))).toBe(false);
  });

  it('refuses to register a client whose file it cannot parse, and leaves the file alone', async () => {
    await bed.write('cursor', '{ "mcpServers": { oops }\n');
    await expect(bed.service.register('cursor')).rejects.toThrow(`${bed.file('cursor')}: not valid JSON`);
    expect(await bed.service.list()).toEqual([]);
    expect(await bed.read('cursor')).toBe('{ "mcpServers": { oops }\n');
    await bed.write('goose', 'extensions: [a, b]\n');
    await expect(bed.service.register('goose')).rejects.toThrow('"extensions" is not a mapping');
  });

  it('edits the file behind a symbolic link and keeps the link', async () => {
    const real = join(bed.home, 'dotfiles', 'cursor-mcp.json');
    await mkdir(dirname(real), { recursive: true });
    await writeFile(real, '{}\n');
    await mkdir(dirname(bed.file('cursor')), { recursive: true });
    await symlink(real, bed.file('cursor'));
    await bed.service.register('cursor');
    expect((await lstat(bed.file('cursor'))).isSymbolicLink()).toBe(true);
    expect(Object.keys((JSON.parse(await readFile(real, 'utf8')) as { mcpServers: object }).mcpServers)).toEqual(['everything', 'notes']);
  });

  it('reports which clients are installed and registered', async () => {
    const status = async (type: string) => (await bed.service.discover()).find((client) => client.client_type === type);
    expect((await bed.service.discover()).every((client) => !client.installed && !client.registered)).toBe(true);
    await mkdir(join(bed.home, '.cursor'), { recursive: true });
    await writeFile(join(bed.home, '.claude.json'), '{}\n');
    await bed.service.register('claude-code');
    expect(await status('cursor')).toEqual({ client_type: 'cursor', installed: true, registered: false, supports_skills: true, supports_plugins: false });
    expect(await status('claude-code')).toEqual({ client_type: 'claude-code', installed: true, registered: true, supports_skills: true, supports_plugins: true });
  });

  it('touches no file or directory of a client that is not registered', async () => {
    await bed.service.reconcile();
    expect(await exists(join(bed.home, '.cursor'))).toBe(false);
    expect(await exists(join(bed.home, '.claude.json'))).toBe(false);
  });
});
