import { join } from 'node:path';
import type { ClientDirs, ClientType } from '../clients/catalog.js';
import type { Placement } from '../artifacts/placement.js';
import type { InstallRecord, Scope } from '../artifacts/store.js';
import { editJsonFile } from './json-edit.js';

const MARKETPLACE = 'toolyard';

interface Where {
  scope: Scope;
  projectRoot: string;
}

const base = (where: Where, dirs: ClientDirs): string => (where.scope === 'user' ? dirs.home : where.projectRoot);
const claudeFolder = (where: Where, dirs: ClientDirs): string => join(base(where, dirs), '.claude', 'plugins', MARKETPLACE);
const codexMarketplace = (where: Where, dirs: ClientDirs): string => join(base(where, dirs), '.agents', 'plugins', 'marketplace.json');
const claudeSettings = (where: Where, dirs: ClientDirs): string =>
  where.scope === 'user' ? join(dirs.home, '.claude', 'settings.json') : join(where.projectRoot, '.claude', 'settings.local.json');

type Entry = Record<string, unknown> & { name?: unknown };
const entriesOf = (data: Record<string, unknown>): Entry[] => (Array.isArray(data.plugins) ? (data.plugins as Entry[]) : []);

/**
 * Plugins for Claude Code and Codex (clarification point 6): the tree in a `toolyard` folder of
 * each, listed in that folder's marketplace; Claude Code also enables it in its settings.
 */
export function pluginPlacement(dirs: ClientDirs): Placement {
  const claude = {
    register: async (record: InstallRecord, where: Where): Promise<void> => {
      const folder = claudeFolder(where, dirs);
      await editJsonFile(join(folder, '.claude-plugin', 'marketplace.json'), (data) => {
        const others = entriesOf(data).filter((entry) => entry.name !== record.name);
        const listed = { name: record.name, source: `./${record.name}`, description: record.metadata.description, version: record.metadata.version };
        return [
          [['name'], MARKETPLACE],
          [['owner'], { name: 'Toolyard' }],
          [['plugins'], [...others, listed].sort((a, b) => String(a.name).localeCompare(String(b.name)))],
        ];
      });
      await editJsonFile(claudeSettings(where, dirs), () => [
        [['enabledPlugins', `${record.name}@${MARKETPLACE}`], true],
        [['extraKnownMarketplaces', MARKETPLACE, 'source'], { source: 'directory', path: folder }],
      ]);
    },
    unregister: async (record: InstallRecord, where: Where): Promise<void> => {
      await editJsonFile(join(claudeFolder(where, dirs), '.claude-plugin', 'marketplace.json'), (data) => [[['plugins'], entriesOf(data).filter((entry) => entry.name !== record.name)]]);
      await editJsonFile(claudeSettings(where, dirs), () => [[['enabledPlugins', `${record.name}@${MARKETPLACE}`], undefined]]);
    },
  };
  const codex = {
    register: (record: InstallRecord, where: Where): Promise<void> =>
      editJsonFile(codexMarketplace(where, dirs), (data) => {
        const others = entriesOf(data).filter((entry) => entry.name !== record.name);
        const entry = {
          name: record.name,
          source: { source: 'local', path: `./${MARKETPLACE}/${record.name}` },
          policy: { installation: 'AVAILABLE', authentication: 'ON_INSTALL' },
          category: 'Productivity',
        };
        return [...(data.name === undefined ? [[['name'], MARKETPLACE] as [string[], unknown]] : []), [['plugins'], [...others, entry]]];
      }),
    unregister: (record: InstallRecord, where: Where): Promise<void> =>
      editJsonFile(codexMarketplace(where, dirs), (data) => [[['plugins'], entriesOf(data).filter((entry) => entry.name !== record.name)]]),
  };
  const registrars: Partial<Record<ClientType, typeof claude>> = { 'claude-code': claude, codex };
  return {
    supporting: ['claude-code', 'codex'],
    folders: (name, clients, where) => {
      const found = new Map<ClientType, string>();
      if (clients.includes('claude-code')) found.set('claude-code', join(claudeFolder(where, dirs), name));
      if (clients.includes('codex')) found.set('codex', join(base(where, dirs), '.agents', 'plugins', MARKETPLACE, name));
      return found;
    },
    register: async (record) => {
      for (const client of record.clients) await registrars[client as ClientType]?.register(record, { scope: record.scope, projectRoot: record.project_root });
    },
    unregister: async (record) => {
      for (const client of record.clients) await registrars[client as ClientType]?.unregister(record, { scope: record.scope, projectRoot: record.project_root });
    },
  };
}
