import { randomBytes } from 'node:crypto';
import { cp, lstat, mkdir, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

export const exists = (path: string): Promise<boolean> =>
  lstat(path).then(
    () => true,
    () => false,
  );

const beside = (target: string, what: string): string => join(dirname(target), `.${basename(target)}.toolyard-${what}-${randomBytes(4).toString('hex')}`);

/** What was in place before, so a failed install can put it back. */
interface Placed {
  target: string;
  backup: string | undefined;
}

/** A placement that could not be undone: the install record says `failed`. */
export class RollbackFailedError extends Error {}

/**
 * Copies `source` to every target folder: each copy is staged beside its target and renamed into
 * place, so a client never reads a half-written folder; if any step fails, every target gets back
 * what it held before (nothing, or the previous version).
 */
export async function placeFolders(source: string, targets: readonly string[]): Promise<void> {
  const placed: Placed[] = [];
  try {
    for (const target of targets) {
      await mkdir(dirname(target), { recursive: true });
      const staging = beside(target, 'staging');
      try {
        await cp(source, staging, { recursive: true, errorOnExist: true, force: false });
        const backup = (await exists(target)) ? beside(target, 'backup') : undefined;
        if (backup !== undefined) await rename(target, backup);
        placed.push({ target, backup });
        await rename(staging, target);
      } finally {
        await rm(staging, { recursive: true, force: true });
      }
    }
  } catch (error) {
    await rollBack(placed).catch((rollback: unknown) => {
      throw new RollbackFailedError(`the install failed (${(error as Error).message}) and could not be undone: ${(rollback as Error).message}`);
    });
    throw error;
  }
  for (const { backup } of placed) if (backup !== undefined) await rm(backup, { recursive: true, force: true });
}

async function rollBack(placed: readonly Placed[]): Promise<void> {
  for (const { target, backup } of [...placed].reverse()) {
    await rm(target, { recursive: true, force: true });
    if (backup !== undefined) await rename(backup, target);
  }
}

/** Removes the folders; a folder already gone is no error. */
export async function removeFolders(targets: readonly string[]): Promise<void> {
  for (const target of targets) await rm(target, { recursive: true, force: true });
}
