import { pluginComponents } from '../plugins/components.js';
import { validatePlugin, parseManifest, MANIFEST_FILE } from '../plugins/validate.js';
import { isStringMap, parseFrontMatter, SKILL_FILE, validateSkill, type Validation } from '../skills/validate.js';
import type { FolderSnapshot } from './folder.js';

export type Kind = 'skills' | 'plugins';

/** What an artifact says about itself: the name its folder is written under, and its metadata. */
export interface Identity {
  name: string;
  version: string;
  description: string;
  license: string;
  author: string;
  /** Skills: `metadata.tags`; plugins: `keywords`. */
  tags: string[];
}

/** The rules and facts that differ between skills and plugins; everything else is shared. */
export interface KindSpec {
  kind: Kind;
  singular: 'skill' | 'plugin';
  artifactType: string;
  /** The file that makes a folder an artifact of this kind. */
  definingFile: string;
  validate: (snapshot: FolderSnapshot) => Validation;
  /** The identity read from the defining file; call after `validate` found no blocking error. */
  identify: (snapshot: FolderSnapshot) => Identity;
  /** What the artifact holds, by component kind (plugins); empty for skills. */
  components: (snapshot: FolderSnapshot) => Record<string, number>;
}

const text = (value: unknown): string => (typeof value === 'string' ? value : '');
const list = (value: unknown): string[] => (Array.isArray(value) ? value.filter((item) => typeof item === 'string') : []);
const commaList = (value: string): string[] =>
  value
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');

export const SKILLS: KindSpec = {
  kind: 'skills',
  singular: 'skill',
  artifactType: 'dev.toolyard.skills.v1',
  definingFile: SKILL_FILE,
  validate: validateSkill,
  components: () => ({}),
  identify: (snapshot) => {
    const parsed = parseFrontMatter(snapshot.text(SKILL_FILE) ?? '');
    const front = 'frontMatter' in parsed ? parsed.frontMatter : {};
    // version, author and tags are not front-matter keys of the format: they live in its free `metadata` map
    const metadata = isStringMap(front.metadata) ? front.metadata : {};
    return {
      name: text(front.name),
      version: metadata.version ?? '',
      description: text(front.description),
      license: text(front.license),
      author: metadata.author ?? '',
      tags: commaList(metadata.tags ?? ''),
    };
  },
};

export const PLUGINS: KindSpec = {
  kind: 'plugins',
  singular: 'plugin',
  artifactType: 'dev.toolyard.plugins.v1',
  definingFile: MANIFEST_FILE,
  validate: validatePlugin,
  components: pluginComponents,
  identify: (snapshot) => {
    const parsed = parseManifest(snapshot.text(MANIFEST_FILE));
    const manifest = 'manifest' in parsed ? parsed.manifest : {};
    const author = manifest.author;
    return {
      name: text(manifest.name),
      version: text(manifest.version),
      description: text(manifest.description),
      license: text(manifest.license),
      author: typeof author === 'object' && author !== null && 'name' in author ? text(author.name) : text(author),
      tags: list(manifest.keywords),
    };
  },
};

export const KINDS = { skills: SKILLS, plugins: PLUGINS } as const;
