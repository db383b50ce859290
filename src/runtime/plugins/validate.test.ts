import { describe, expect, it } from 'vitest';
import type { FileEntry, FolderSnapshot } from '../artifacts/folder.js';
import { validatePlugin } from './validate.js';

const entry = (path: string): FileEntry => ({ path, kind: path.includes('.') ? 'file' : 'dir', size: 10, executable: false });

function plugin(folder: string, files: Record<string, string>, dirs: string[] = []): FolderSnapshot {
  const entries = [...dirs.map((path) => ({ ...entry(path), kind: 'dir' as const })), ...Object.keys(files).map(entry)];
  return { folder, entries, text: (path) => files[path] };
}

const manifest = (value: object): string => JSON.stringify(value);
const skill = (name: string): string => `---\nname: ${name}\ndescription: Does ${name}.\n---\nbody\n`;

describe('plugin manifest validation', () => {
  it('accepts a plugin with commands, a bundled skill, hooks and servers', () => {
    const result = validatePlugin(
      plugin(
        'review-kit',
        {
          '.claude-plugin/plugin.json': manifest({ name: 'review-kit', version: '1.2.0', description: 'Review helpers', commands: './commands' }),
          'commands/review.md': '# review',
          'skills/code-review/SKILL.md': skill('code-review'),
          'hooks/hooks.json': '{"hooks":{}}',
          '.mcp.json': '{"mcpServers":{}}',
        },
        ['commands', 'skills', 'skills/code-review', 'hooks'],
      ),
    );
    expect(result).toEqual({ valid: true, errors: [], warnings: [], blocking: [] });
  });

  it('blocks without a manifest object or a usable name', () => {
    expect(validatePlugin(plugin('x', {})).blocking).toEqual(['.claude-plugin/plugin.json is missing']);
    expect(validatePlugin(plugin('x', { '.claude-plugin/plugin.json': '[1]' })).blocking).toEqual(['.claude-plugin/plugin.json must be a JSON object']);
    expect(validatePlugin(plugin('x', { '.claude-plugin/plugin.json': '{"name":"X Y"}' })).blocking).toEqual([
      'name "X Y" must be lowercase letters, digits and single hyphens, not starting or ending with a hyphen',
    ]);
  });

  it('refuses paths outside the plugin or missing, bad JSON and invalid bundled skills', () => {
    const result = validatePlugin(
      plugin('kit', {
        '.claude-plugin/plugin.json': manifest({ name: 'other', agents: ['../agents', 'agents'], commands: './nowhere' }),
        'hooks/hooks.json': '{',
        'skills/helper/SKILL.md': skill('Helper'),
      }),
    );
    expect(result.errors).toEqual([
      'name "other" must equal the folder name "kit"',
      'commands path "./nowhere" does not exist',
      'agents path "../agents" must start with ./ and stay inside the plugin',
      'agents path "agents" must start with ./ and stay inside the plugin',
      'hooks/hooks.json is not valid JSON',
      'skills/helper/SKILL.md: name "Helper" must be lowercase letters, digits and single hyphens, not starting or ending with a hyphen',
    ]);
    expect(result.blocking).toEqual([]);
  });

  it('warns about a non-semver version, unknown keys and no components', () => {
    const result = validatePlugin(plugin('kit', { '.claude-plugin/plugin.json': manifest({ name: 'kit', version: 'latest', colour: 'red' }) }));
    expect(result.valid).toBe(true);
    expect(result.warnings).toEqual([
      'unknown .claude-plugin/plugin.json key "colour"',
      'version "latest" is not a semantic version',
      'the plugin has no components (commands, agents, skills, hooks, MCP or LSP servers, output styles)',
    ]);
  });
});
