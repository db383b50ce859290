import { readFile } from 'node:fs/promises';
import { stringify } from 'yaml';
import { describe, expect, it } from 'vitest';
import type { FileEntry, FolderSnapshot } from '../artifacts/folder.js';
import { parseFrontMatter, validateSkill } from './validate.js';

interface FixtureSkill {
  directory: string;
  frontmatter: Record<string, unknown>;
  bodyLines: number;
  specIssues: string[];
}

const fixture = JSON.parse(await readFile(new URL('../../../test/fixtures/anthropics-skills-frontmatter.json', import.meta.url), 'utf8')) as { skills: FixtureSkill[] };

const file = (path: string, size = 10): FileEntry => ({ path, kind: 'file', size, executable: false });

function snapshot(folder: string, skillMd: string | undefined, entries: FileEntry[] = []): FolderSnapshot {
  const all = skillMd === undefined ? entries : [file('SKILL.md', skillMd.length), ...entries];
  return { folder, entries: all, text: (path) => (path === 'SKILL.md' ? skillMd : undefined) };
}

const skillMd = (front: Record<string, unknown>, bodyLines = 3): string => `---\n${stringify(front)}---\n${'line\n'.repeat(bodyLines)}`;

describe('Agent Skills validation over the real anthropics/skills front matter', () => {
  it.each(fixture.skills)('$directory: valid exactly when the specification finds no issue', (skill) => {
    const result = validateSkill(snapshot(skill.directory, skillMd(skill.frontmatter, skill.bodyLines)));
    expect(result.valid).toBe(skill.specIssues.length === 0);
    expect(result.blocking).toEqual([]);
  });

  it('refuses the 1,068-character claude-api description, as the format says must', () => {
    const skill = fixture.skills.find((item) => item.directory === 'claude-api');
    const result = validateSkill(snapshot('claude-api', skillMd(skill?.frontmatter ?? {}, skill?.bodyLines)));
    expect(result.errors).toEqual(['description is 1068 characters; at most 1024 are allowed']);
    expect(result.warnings).toEqual([expect.stringMatching(/^SKILL.md is 5\d\d lines; keep it under 500/)]);
  });

  it('refuses the template whose name is not its folder name, without blocking an install', () => {
    const skill = fixture.skills.find((item) => item.directory === 'template');
    const result = validateSkill(snapshot('template', skillMd(skill?.frontmatter ?? {})));
    expect(result.errors).toEqual(['name "template-skill" must equal the folder name "template"']);
    expect(result.blocking).toEqual([]);
  });
});

describe('Agent Skills validation rules', () => {
  const valid = { name: 'code-review', description: 'Reviews code.' };

  it('blocks an install without SKILL.md, without front matter or with an unusable name', () => {
    expect(validateSkill(snapshot('x', undefined)).blocking).toEqual(['SKILL.md is missing']);
    expect(validateSkill(snapshot('x', '# no front matter\n')).blocking).toEqual(['SKILL.md has no front matter (a YAML block between --- lines at the top)']);
    expect(validateSkill(snapshot('x', '---\n- a\n---\n')).blocking).toEqual(['SKILL.md front matter is not a mapping of keys to values']);
    expect(validateSkill(snapshot('Bad--Name', skillMd({ ...valid, name: 'Bad--Name' }))).blocking).toEqual([
      'name "Bad--Name" must be lowercase letters, digits and single hyphens, not starting or ending with a hyphen',
    ]);
    expect(validateSkill(snapshot('x', skillMd({ ...valid, name: 'a'.repeat(65) }))).errors[0]).toBe('name is 65 characters; at most 64 are allowed');
  });

  it('checks description, compatibility and metadata', () => {
    const errors = validateSkill(snapshot('code-review', skillMd({ name: 'code-review', description: ' ', compatibility: 'x'.repeat(501), metadata: { version: 1 } }))).errors;
    expect(errors).toEqual(['description is missing or empty', 'compatibility is 501 characters; at most 500 are allowed', 'metadata must map strings to strings']);
    expect(validateSkill(snapshot('code-review', skillMd({ ...valid, compatibility: '' }))).errors).toEqual(['compatibility, when given, must be a non-empty string']);
  });

  it('warns about unknown keys and comma-delimited allowed-tools', () => {
    const result = validateSkill(snapshot('code-review', skillMd({ ...valid, 'allowed-tools': 'Bash, Read', model: 'x', metadata: { version: '1.0.0' } })));
    expect(result).toEqual({ valid: true, errors: [], blocking: [], warnings: ['unknown front matter key "model"', 'allowed-tools is a space-delimited list; commas are taken as part of the tool names'] });
  });

  it('refuses links, oversized files and too many files', () => {
    const entries: FileEntry[] = [
      { path: 'link', kind: 'link', size: 0, executable: false },
      file('big.bin', 101 * 1024 * 1024),
      ...Array.from({ length: 1000 }, (_, index) => file(`f${index}`)),
    ];
    const result = validateSkill(snapshot('code-review', skillMd(valid), entries));
    expect(result.blocking).toEqual(['link is a link; only regular files and folders are allowed', 'big.bin is over 100 MiB', '1002 files: at most 1000 are allowed']);
  });

  it('reads front matter with Windows line ends', () => {
    expect(parseFrontMatter('---\r\nname: a\r\n---\r\nbody')).toEqual({ frontMatter: { name: 'a' } });
  });
});
