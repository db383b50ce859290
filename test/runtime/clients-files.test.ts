import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CLIENT_TYPES, CLIENTS, type ClientType } from '../../src/runtime/clients/catalog.js';
import { ConcurrentEditError } from '../../src/runtime/clients/config-file.js';
import { createClientTestbed, EVERYTHING, NOTES, type ClientTestbed } from '../../src/runtime/clients/service-testing.js';

const FIXTURES = join(import.meta.dirname, 'fixtures', 'clients');
const extension = (type: ClientType): string => (type === 'codex' ? 'toml' : type === 'goose' || type === 'continue' ? 'yaml' : 'json');
const fixture = (type: ClientType, stage: 'before' | 'started' | 'stopped'): Promise<string> => readFile(join(FIXTURES, `${type}.${stage}.${extension(type)}`), 'utf8');
const entries = (type: ClientType, text: string) => CLIENTS[type].format.read(text).entries;

describe('client configuration files', () => {
  let bed: ClientTestbed;
  beforeEach(async () => {
    bed = await createClientTestbed();
  });
  afterEach(() => bed.close());

  describe.each(CLIENT_TYPES)('%s', (type) => {
    it('gets the running workloads added, changed and removed, and keeps every byte of the user’s own content', async () => {
      const before = await fixture(type, 'before');
      await bed.write(type, before);
      bed.running = [EVERYTHING, NOTES];

      expect(await bed.service.register(type)).toEqual({ name: type, groups: ['default'] });
      const started = await fixture(type, 'started');
      expect(await bed.read(type)).toBe(started);
      await bed.service.reconcile();
      expect(await bed.read(type)).toBe(started);

      // restarted on another port: the entry is rewritten in place
      bed.running = [{ ...EVERYTHING, url: 'http://127.0.0.1:41009/mcp' }, NOTES];
      await bed.service.reconcile();
      expect(await bed.read(type)).toBe(started.replace('41001', '41009'));

      bed.running = [NOTES];
      await bed.service.reconcile();
      expect(await bed.read(type)).toBe(await fixture(type, 'stopped'));

      bed.running = [];
      await bed.service.reconcile();
      expect(await bed.read(type)).toBe(before);
    });

    it('takes its entries out again when the client is unregistered', async () => {
      const before = await fixture(type, 'before');
      await bed.write(type, before);
      bed.running = [EVERYTHING, NOTES];
      await bed.service.register(type);
      await bed.service.unregister([type]);
      expect(await bed.read(type)).toBe(before);
      expect(await bed.service.list()).toEqual([]);
    });
  });

  describe.each([
    ['cursor', 'linear'],
    ['goose', 'fetch'],
    ['continue', 'memory'],
    ['codex', 'docs'],
    ['zed', 'mcp-server-docs'],
  ] as const)('%s with a user entry named like a workload', (type, taken) => {
    it('leaves the user’s entry alone and logs the conflict', async () => {
      const before = await fixture(type, 'before');
      await bed.write(type, before);
      const userEntry = entries(type, before).get(taken);
      bed.running = [{ ...EVERYTHING, name: taken }, NOTES];

      await bed.service.register(type);
      const after = entries(type, await bed.read(type));
      expect(after.get(taken)).toEqual(userEntry);
      expect(after.get('notes')).toEqual(CLIENTS[type].entry(NOTES));
      expect(bed.warnings).toContainEqual(expect.objectContaining({ client: type, server: taken }));

      await bed.service.unregister([type]);
      expect(await bed.read(type)).toBe(before);
    });
  });

  it('does not lose a user edit saved between its read and its write', async () => {
    const before = await fixture('claude-code', 'before');
    await bed.write('claude-code', before);
    const edited = before.replace('"theme": "dark"', '"theme": "light"');
    let saves = 0;
    bed.hooks.beforeWrite = async (file) => {
      if (saves++ === 0) await writeFile(file, edited);
    };
    bed.running = [EVERYTHING, NOTES];
    await bed.service.register('claude-code');

    expect(saves).toBe(2);
    expect(await bed.read('claude-code')).toBe((await fixture('claude-code', 'started')).replace('"theme": "dark"', '"theme": "light"'));
  });

  it('gives up without writing when the file keeps changing', async () => {
    const before = await fixture('goose', 'before');
    await bed.write('goose', before);
    let saves = 0;
    bed.hooks.beforeWrite = async (file) => {
      saves++;
      await writeFile(file, `${before}# save ${String(saves)}\n`);
    };
    bed.running = [EVERYTHING];
    await expect(bed.service.register('goose')).rejects.toBeInstanceOf(ConcurrentEditError);
    expect(await bed.read('goose')).toBe(`${before}# save ${String(saves)}\n`);
  });
});
