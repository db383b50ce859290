import type { FolderSnapshot } from '../artifacts/folder.js';
import { bundledSkillFolders, componentPaths, insidePath, MANIFEST_FILE, parseManifest, type Manifest } from './validate.js';
import { isJsonObject } from '../../core/json-object.js';

function parsed(snapshot: FolderSnapshot, path: string): unknown {
  const text = snapshot.text(path);
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** `.md` files under the manifest's paths for the key, or under its default folder. */
function markdownCount(manifest: Manifest, snapshot: FolderSnapshot, key: 'commands' | 'agents'): number {
  const given = componentPaths(manifest[key]).map(insidePath).filter((path) => path !== undefined);
  const roots = given.length > 0 ? given : [key];
  return snapshot.entries.filter((entry) => entry.kind === 'file' && entry.path.endsWith('.md') && roots.some((root) => entry.path === root || entry.path.startsWith(`${root}/`))).length;
}

/** Keys of a map held inline in the manifest, or in the file the manifest (or the default) points at. */
function mapCount(manifest: Manifest, snapshot: FolderSnapshot, key: string, defaultFile: string, inner: string): number {
  const inline = manifest[key];
  const fromFile = (path: string): unknown => {
    const data = parsed(snapshot, path);
    return isJsonObject(data) && isJsonObject(data[inner]) ? data[inner] : data;
  };
  const value = isJsonObject(inline) ? inline : fromFile(insidePath(componentPaths(inline)[0] ?? '') ?? defaultFile);
  return isJsonObject(value) ? Object.keys(value).length : 0;
}

/**
 * What a plugin holds (clarification point 6): command and agent `.md` files, bundled skill
 * folders, hook events and MCP and LSP servers; kinds it does not have are left out.
 */
export function pluginComponents(snapshot: FolderSnapshot): Record<string, number> {
  const result = parseManifest(snapshot.text(MANIFEST_FILE));
  const manifest = 'manifest' in result ? result.manifest : {};
  const counts: Record<string, number> = {
    agents: markdownCount(manifest, snapshot, 'agents'),
    commands: markdownCount(manifest, snapshot, 'commands'),
    hooks: mapCount(manifest, snapshot, 'hooks', 'hooks/hooks.json', 'hooks'),
    lspServers: mapCount(manifest, snapshot, 'lspServers', '.lsp.json', 'lspServers'),
    mcpServers: mapCount(manifest, snapshot, 'mcpServers', '.mcp.json', 'mcpServers'),
    skills: bundledSkillFolders(manifest, snapshot).length,
  };
  return Object.fromEntries(Object.entries(counts).filter(([, count]) => count > 0));
}

/** The components Codex does not load from a plugin; it takes skills, MCP servers and hooks. */
const CODEX_SKIPS = ['agents', 'commands', 'lspServers'];

/** Per client, the components of the plugin it cannot take; clients that take them all are left out. */
export function unmaterializedComponents(clients: readonly string[], components: Record<string, number>): Record<string, string[]> {
  if (!clients.includes('codex')) return {};
  const skipped = CODEX_SKIPS.filter((component) => (components[component] ?? 0) > 0);
  return skipped.length === 0 ? {} : { codex: skipped };
}
