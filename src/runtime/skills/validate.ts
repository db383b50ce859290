import { parse } from 'yaml';
import { fileRuleErrors, type FolderSnapshot } from '../artifacts/folder.js';

/** The result of `POST /validate`; `blocking` are the errors that also stop an install. */
export interface Validation {
  valid: boolean;
  errors: string[];
  warnings: string[];
  blocking: string[];
}

export const SKILL_FILE = 'SKILL.md';
export const NAME_PATTERN = /^[a-z0-9]+(-[a-z0-9]+)*$/;
const NAME_MAX = 64;
const DESCRIPTION_MAX = 1_024;
const COMPATIBILITY_MAX = 500;
const LINES_MAX = 500;
const KNOWN_KEYS = new Set(['name', 'description', 'license', 'compatibility', 'metadata', 'allowed-tools']);

export type FrontMatter = Record<string, unknown>;

/** The YAML mapping between the leading `---` lines of a `SKILL.md`, or why there is none. */
export function parseFrontMatter(text: string): { frontMatter: FrontMatter } | { problem: string } {
  const match = /^\uFEFF?---\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/.exec(text);
  if (match === null) return { problem: `${SKILL_FILE} has no front matter (a YAML block between --- lines at the top)` };
  let data: unknown;
  try {
    data = parse(match[1] ?? '');
  } catch (error) {
    return { problem: `${SKILL_FILE} front matter is not valid YAML: ${(error as Error).message.split('\n')[0] ?? ''}` };
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return { problem: `${SKILL_FILE} front matter is not a mapping of keys to values` };
  return { frontMatter: data as FrontMatter };
}

/** Why a skill name cannot be used as a folder name, or undefined when it can. */
export function nameProblem(name: unknown): string | undefined {
  if (typeof name !== 'string' || name === '') return 'name is missing';
  if (name.length > NAME_MAX) return `name is ${name.length} characters; at most ${NAME_MAX} are allowed`;
  if (!NAME_PATTERN.test(name)) return `name "${name}" must be lowercase letters, digits and single hyphens, not starting or ending with a hyphen`;
  return undefined;
}

function fieldErrors(front: FrontMatter, folder: string): string[] {
  const errors: string[] = [];
  const { name, description, compatibility, metadata } = front;
  const badName = nameProblem(name);
  if (badName !== undefined) errors.push(badName);
  else if (name !== folder) errors.push(`name "${String(name)}" must equal the folder name "${folder}"`);
  if (typeof description !== 'string' || description.trim() === '') errors.push('description is missing or empty');
  else if (description.length > DESCRIPTION_MAX) errors.push(`description is ${description.length} characters; at most ${DESCRIPTION_MAX} are allowed`);
  if (compatibility !== undefined) {
    if (typeof compatibility !== 'string' || compatibility.trim() === '') errors.push('compatibility, when given, must be a non-empty string');
    else if (compatibility.length > COMPATIBILITY_MAX) errors.push(`compatibility is ${compatibility.length} characters; at most ${COMPATIBILITY_MAX} are allowed`);
  }
  if (metadata !== undefined && !isStringMap(metadata)) errors.push('metadata must map strings to strings');
  return errors;
}

function fieldWarnings(front: FrontMatter, text: string): string[] {
  const warnings = Object.keys(front)
    .filter((key) => !KNOWN_KEYS.has(key))
    .map((key) => `unknown front matter key "${key}"`);
  const tools = front['allowed-tools'];
  if (typeof tools === 'string' && tools.includes(',')) warnings.push('allowed-tools is a space-delimited list; commas are taken as part of the tool names');
  const lines = text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
  if (lines > LINES_MAX) warnings.push(`${SKILL_FILE} is ${lines} lines; keep it under ${LINES_MAX} and move details to referenced files`);
  return warnings;
}

export const isStringMap = (value: unknown): value is Record<string, string> =>
  typeof value === 'object' && value !== null && !Array.isArray(value) && Object.values(value).every((item) => typeof item === 'string');

/**
 * The Agent Skills format's rules (agentskills.io specification) for one skill folder. The format's
 * limits are written as "must", so going over them is an error, not a warning.
 */
export function validateSkill(snapshot: FolderSnapshot, prefix = ''): Validation {
  const fileErrors = prefix === '' ? fileRuleErrors(snapshot.entries) : [];
  const text = snapshot.text(`${prefix}${SKILL_FILE}`);
  if (text === undefined) {
    const missing = `${prefix}${SKILL_FILE} is missing`;
    return { valid: false, errors: [missing, ...fileErrors], warnings: [], blocking: [missing, ...fileErrors] };
  }
  const parsed = parseFrontMatter(text);
  if ('problem' in parsed) {
    // without front matter there is no name, and so no folder to write
    const errors = [`${prefix}${parsed.problem}`, ...fileErrors];
    return { valid: false, errors, warnings: [], blocking: errors };
  }
  const front = parsed.frontMatter;
  // a bundled skill's messages name its file, so a plugin's author knows which skill they are about
  const at = (message: string): string => (prefix === '' ? message : `${prefix}${SKILL_FILE}: ${message}`);
  const errors = [...fieldErrors(front, snapshot.folder).map(at), ...fileErrors];
  const badName = nameProblem(front.name);
  const blocking = [...(badName === undefined ? [] : [at(badName)]), ...fileErrors];
  return { valid: errors.length === 0, errors, warnings: fieldWarnings(front, text).map(at), blocking };
}
