import { join } from 'node:path';
import type { ClientDirs, ClientType } from '../clients/catalog.js';

/** Where a skill is written: the user's own folders, or a project's. */
export interface Where {
  scope: 'user' | 'project';
  /** The project root for project scope; ignored for user scope. */
  projectRoot: string;
}

type Places = { user: (dirs: ClientDirs) => string; project: string };

const home =
  (...parts: string[]) =>
  (dirs: ClientDirs): string =>
    join(dirs.home, ...parts);
const config =
  (...parts: string[]) =>
  (dirs: ClientDirs): string =>
    join(dirs.xdgConfig, ...parts);
const copilot: Places = { user: home('.copilot', 'skills'), project: '.github/skills' };
const agents: Places = { user: home('.agents', 'skills'), project: '.agents/skills' };

/** The skills folders of clarification point 5; a client missing here documents none (continue, lm-studio). */
export const SKILL_PLACES: Partial<Record<ClientType, Places>> = {
  'claude-code': { user: home('.claude', 'skills'), project: '.claude/skills' },
  cursor: { user: home('.cursor', 'skills'), project: '.cursor/skills' },
  vscode: copilot,
  'vscode-insider': copilot,
  'copilot-cli': copilot,
  cline: { user: home('.cline', 'skills'), project: '.cline/skills' },
  windsurf: { user: home('.codeium', 'windsurf', 'skills'), project: '.windsurf/skills' },
  goose: { user: config('goose', 'skills'), project: '.goose/skills' },
  'gemini-cli': { user: home('.gemini', 'skills'), project: '.gemini/skills' },
  codex: agents,
  zed: agents,
  opencode: { user: config('opencode', 'skills'), project: '.opencode/skills' },
  kiro: { user: home('.kiro', 'skills'), project: '.kiro/skills' },
  'amp-cli': { user: config('amp', 'skills'), project: '.agents/skills' },
};

/** The folder a client reads skills from in this scope; the skill goes in `<name>/` inside it. */
export function skillsFolder(client: ClientType, where: Where, dirs: ClientDirs): string | undefined {
  const places = SKILL_PLACES[client];
  if (places === undefined) return undefined;
  return where.scope === 'user' ? places.user(dirs) : join(where.projectRoot, places.project);
}
