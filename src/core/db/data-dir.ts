import { mkdir, readdir, rename, rm, rmdir } from 'node:fs/promises';
import { resolve } from 'node:path';
import { preparePgliteThread, type PgliteThread, type PreparedPgliteThread } from './pglite-thread.js';

/** Missing, or a directory with nothing in it: PGlite would create a cluster there. */
async function holdsNothing(directory: string): Promise<boolean> {
  try {
    return (await readdir(directory)).length === 0;
  } catch (error) {
    // a file in its place is reported by the mkdir that follows, in the words of a missing directory
    const { code } = error as NodeJS.ErrnoException;
    if (code === 'ENOENT' || code === 'ENOTDIR') return true;
    throw error;
  }
}

/**
 * Creating a cluster takes seconds, and one cut short (the first start stopped) leaves a directory PGlite
 * then aborts on, with no word of where. So the cluster is built beside its place and moved in whole: the
 * data directory either holds a finished cluster or does not exist. A build left by a stopped start
 * (`<dataDir>.initializing`) is unfinished by definition, so the next start throws it away.
 */
async function createCluster(dataDir: string, building: string, prepared: PreparedPgliteThread): Promise<PgliteThread> {
  const engine = await prepared.open({ dataDir: building });
  await engine.close();
  await rmdir(dataDir);
  await rename(building, dataDir);
  return preparePgliteThread().open({ dataDir });
}

async function openCluster(dataDir: string, prepared: PreparedPgliteThread): Promise<PgliteThread> {
  try {
    return await prepared.open({ dataDir });
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(
      `the embedded database in ${dataDir} cannot be opened (${reason}). ` +
        'If it was left by a first start stopped before the database was created, it holds no data: remove it and start again.',
      { cause: error },
    );
  }
}

/** The engine of a data directory, created when missing (`memory://` keeps the data in memory). */
export async function openDataDir(dataDir: string, prepared: PreparedPgliteThread = preparePgliteThread()): Promise<PgliteThread> {
  if (dataDir.startsWith('memory://')) return prepared.open({ dataDir });
  const directory = resolve(dataDir);
  const building = `${directory}.initializing`;
  let fresh: boolean;
  try {
    fresh = await holdsNothing(directory);
    if (fresh) {
      await mkdir(directory, { recursive: true });
      await rm(building, { recursive: true, force: true });
    }
  } catch (error) {
    await prepared.cancel();
    throw error;
  }
  return fresh ? createCluster(directory, building, prepared) : openCluster(directory, prepared);
}
