import { stat } from 'node:fs/promises';
import { isAbsolute } from 'node:path';
import { InvalidInputError } from '../../core/errors.js';
import type { Scope } from './store.js';

/** A scope and project root as asked, checked: what every route taking them agrees on. */
export interface ScopeQuery {
  scope?: Scope | undefined;
  project_root?: string | undefined;
}

/**
 * `scope` defaults to user; `project_root` is required with project scope, refused with user scope,
 * and must be an absolute path to an existing folder (clarification point 1).
 */
export async function checkScope(query: ScopeQuery): Promise<{ scope: Scope; projectRoot: string }> {
  const scope = query.scope ?? 'user';
  const root = query.project_root ?? '';
  if (scope === 'user') {
    if (root !== '') throw new InvalidInputError('project_root is only for scope=project; leave it out for user scope');
    return { scope, projectRoot: '' };
  }
  if (root === '') throw new InvalidInputError('project_root is required with scope=project');
  if (!isAbsolute(root)) throw new InvalidInputError(`project_root "${root}" must be an absolute path`);
  const stats = await stat(root).catch(() => undefined);
  if (stats?.isDirectory() !== true) throw new InvalidInputError(`project_root ${root} is not an existing folder`);
  return { scope, projectRoot: root };
}
