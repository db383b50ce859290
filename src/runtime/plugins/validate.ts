import validVersion from 'semver/functions/valid.js';
import { fileRuleErrors, type FolderSnapshot } from '../artifacts/folder.js';
import { nameProblem, SKILL_FILE, validateSkill, type Validation } from '../skills/validate.js';

export const MANIFEST_FILE = '.claude-plugin/plugin.json';
const HOOKS_FILE = 'hooks/hooks.json';
const MCP_FILE = '.mcp.json';
const LSP_FILE = '.lsp.json';

/** The manifest keys that point at components, and the default place of each. */
export const COMPONENT_KEYS = ['commands', 'agents', 'skills', 'hooks', 'mcpServers', 'lspServers', 'outputStyles'] as const;
const DEFAULT_PLACES: Record<(typeof COMPONENT_KEYS)[number], string> = {
  commands: 'commands',
  agents: 'agents',
  skills: 'skills',
  hooks: HOOKS_FILE,
  mcpServers: MCP_FILE,
  lspServers: LSP_FILE,
  outputStyles: 'output-styles',
};
const KNOWN_KEYS = new Set<string>(['$schema', 'name', 'version', 'description', 'author', 'homepage', 'repository', 'license', 'keywords', ...COMPONENT_KEYS]);

export type Manifest = Record<string, unknown>;

/** The parsed `plugin.json`, or why it cannot be used. */
export function parseManifest(text: string | undefined): { manifest: Manifest } | { problem: string } {
  if (text === undefined) return { problem: `${MANIFEST_FILE} is missing` };
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    return { problem: `${MANIFEST_FILE} is not valid JSON: ${(error as Error).message}` };
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return { problem: `${MANIFEST_FILE} must be a JSON object` };
  return { manifest: data as Manifest };
}

/** Component paths a manifest names: strings and arrays of strings (inline objects are not paths). */
export function componentPaths(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.filter((item) => typeof item === 'string');
  return [];
}

/** `./x/y` → `x/y`; undefined when the path does not start with `./` or leaves the plugin. */
export function insidePath(path: string): string | undefined {
  if (!path.startsWith('./')) return undefined;
  const parts: string[] = [];
  for (const part of path.slice(2).split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') return undefined;
    parts.push(part);
  }
  return parts.join('/');
}

const parsesAsJson = (text: string): boolean => {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
};

function pathErrors(manifest: Manifest, snapshot: FolderSnapshot): string[] {
  const known = new Set(snapshot.entries.map((entry) => entry.path));
  const errors: string[] = [];
  for (const key of COMPONENT_KEYS) {
    for (const path of componentPaths(manifest[key])) {
      const inside = insidePath(path);
      if (inside === undefined) errors.push(`${key} path "${path}" must start with ./ and stay inside the plugin`);
      else if (inside !== '' && !known.has(inside)) errors.push(`${key} path "${path}" does not exist`);
    }
  }
  for (const file of [HOOKS_FILE, MCP_FILE]) {
    const text = snapshot.text(file);
    if (text !== undefined && !parsesAsJson(text)) errors.push(`${file} is not valid JSON`);
  }
  return errors;
}

/** Folders holding a bundled skill: `skills/<name>/SKILL.md` and those under the manifest's skill paths. */
export function bundledSkillFolders(manifest: Manifest, snapshot: FolderSnapshot): string[] {
  const roots = ['skills', ...componentPaths(manifest.skills).map(insidePath).filter((path) => path !== undefined)];
  const folders = new Set<string>();
  for (const entry of snapshot.entries) {
    for (const root of roots) {
      const under = root === '' ? entry.path : entry.path.startsWith(`${root}/`) ? entry.path.slice(root.length + 1) : undefined;
      if (under !== undefined && /^[^/]+\/SKILL\.md$/.test(under)) folders.add(entry.path.slice(0, -`/${SKILL_FILE}`.length));
    }
  }
  return [...folders].sort();
}

function hasComponents(manifest: Manifest, snapshot: FolderSnapshot): boolean {
  const paths = new Set(snapshot.entries.map((entry) => entry.path));
  return COMPONENT_KEYS.some((key) => manifest[key] !== undefined || paths.has(DEFAULT_PLACES[key]));
}

/**
 * The Claude Code plugin format's rules: a manifest object with a usable name, component paths that
 * start with `./`, stay inside and exist, parseable hook and server files, and valid bundled skills.
 */
export function validatePlugin(snapshot: FolderSnapshot): Validation {
  const fileErrors = fileRuleErrors(snapshot.entries);
  const parsed = parseManifest(snapshot.text(MANIFEST_FILE));
  if ('problem' in parsed) {
    const errors = [parsed.problem, ...fileErrors];
    return { valid: false, errors, warnings: [], blocking: errors };
  }
  const { manifest } = parsed;
  const badName = nameProblem(manifest.name);
  const nameErrors = badName !== undefined ? [badName] : manifest.name !== snapshot.folder ? [`name "${String(manifest.name)}" must equal the folder name "${snapshot.folder}"`] : [];
  const skills = bundledSkillFolders(manifest, snapshot).map((folder) => validateSkill({ ...snapshot, folder: folder.split('/').at(-1) ?? folder }, `${folder}/`));
  const errors = [...nameErrors, ...pathErrors(manifest, snapshot), ...skills.flatMap((skill) => skill.errors), ...fileErrors];
  const warnings = Object.keys(manifest)
    .filter((key) => !KNOWN_KEYS.has(key))
    .map((key) => `unknown ${MANIFEST_FILE} key "${key}"`);
  if (manifest.version !== undefined && (typeof manifest.version !== 'string' || validVersion(manifest.version) === null)) warnings.push(`version ${JSON.stringify(manifest.version)} is not a semantic version`);
  if (!hasComponents(manifest, snapshot)) warnings.push('the plugin has no components (commands, agents, skills, hooks, MCP or LSP servers, output styles)');
  warnings.push(...skills.flatMap((skill) => skill.warnings));
  return { valid: errors.length === 0, errors, warnings, blocking: [...(badName === undefined ? [] : [badName]), ...fileErrors] };
}
