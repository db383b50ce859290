import { createHash } from 'node:crypto';
import { access, mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { withFileLock } from '../state/files.js';

const MARKER = '.toolyard-installed';

/**
 * Runs `install` into `dir` once across processes: concurrent callers wait on a file lock, and an
 * install that died half-way (no marker) is wiped and done again. Resolves to what `install`
 * resolved to, or '' when the directory was already installed.
 */
export async function installOnce(dir: string, install: (dir: string) => Promise<string>): Promise<string> {
  if (await isInstalled(dir)) return '';
  return withFileLock(dir, async () => {
    if (await isInstalled(dir)) return '';
    await rm(dir, { recursive: true, force: true });
    await mkdir(dir, { recursive: true, mode: 0o700 });
    let output: string;
    try {
      output = await install(dir);
    } catch (error) {
      await rm(dir, { recursive: true, force: true });
      throw error;
    }
    await writeFile(join(dir, MARKER), '');
    return output;
  });
}

async function isInstalled(dir: string): Promise<boolean> {
  try {
    await access(join(dir, MARKER));
    return true;
  } catch {
    return false;
  }
}

/** Extra packages change what is installed, so they get a cache entry of their own. */
export function extrasSuffix(extras: readonly string[] | undefined): string {
  if (extras === undefined || extras.length === 0) return '';
  return `+${createHash('sha256').update(JSON.stringify([...extras].sort())).digest('hex').slice(0, 12)}`;
}

/** The installer's environment: the caller's variables without holes, plus the workload's build settings. */
export function installerEnv(
  env: Readonly<Record<string, string | undefined>>,
  extra: Readonly<Record<string, string>> | undefined,
): Record<string, string> {
  const result: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) if (value !== undefined) result[key] = value;
  return { ...result, ...extra };
}
