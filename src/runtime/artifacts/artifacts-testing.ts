import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';

/** Writes `files` (relative path → content) under `dir` and returns `dir`. */
export async function writeTree(dir: string, files: Record<string, string>): Promise<string> {
  for (const [path, content] of Object.entries(files)) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), content);
  }
  return dir;
}

/** A valid skill folder `<parent>/<name>` with a SKILL.md and one script. */
export function writeSkill(parent: string, name: string, options: { description?: string; version?: string; extra?: Record<string, string> } = {}): Promise<string> {
  const metadata = options.version === undefined ? '' : `metadata:\n  version: "${options.version}"\n  author: Ada\n  tags: review, quality\n`;
  return writeTree(join(parent, name), {
    'SKILL.md': `---\nname: ${name}\ndescription: ${options.description ?? `Helps with ${name}.`}\nlicense: Apache-2.0\n${metadata}---\n# ${name}\n\nSteps.\n`,
    'scripts/check.sh': '#!/bin/sh\necho ok\n',
    ...options.extra,
  });
}

/** A valid plugin folder `<parent>/<name>` with a command, an agent, a bundled skill, hooks and an MCP server. */
export function writePlugin(parent: string, name: string, options: { version?: string } = {}): Promise<string> {
  return writeTree(join(parent, name), {
    '.claude-plugin/plugin.json': `${JSON.stringify({ name, version: options.version ?? '1.0.0', description: `The ${name} plugin`, author: { name: 'Ada' }, license: 'MIT', keywords: ['review'] }, null, 2)}\n`,
    'commands/review.md': '# Review\n',
    'agents/reviewer.md': '# Reviewer\n',
    'skills/code-style/SKILL.md': '---\nname: code-style\ndescription: Checks style.\n---\nBody\n',
    'hooks/hooks.json': '{"hooks":{"PostToolUse":[],"Stop":[]}}\n',
    '.mcp.json': '{"mcpServers":{"lint":{"command":"lint-server"}}}\n',
  });
}
