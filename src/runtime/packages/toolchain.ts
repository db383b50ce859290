import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { delimiter, isAbsolute, join } from 'node:path';

/**
 * The absolute path of an executable found on `pathValue` (a PATH string), like `command -v` but
 * without a shell; undefined when absent.
 */
export async function findExecutable(name: string, pathValue: string | undefined): Promise<string | undefined> {
  if (isAbsolute(name)) return (await isExecutableFile(name)) ? name : undefined;
  for (const dir of (pathValue ?? '').split(delimiter)) {
    if (dir === '' || !isAbsolute(dir)) continue;
    const candidate = join(dir, name);
    if (await isExecutableFile(candidate)) return candidate;
  }
  return undefined;
}

async function isExecutableFile(path: string): Promise<boolean> {
  try {
    await access(path, constants.X_OK);
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}
