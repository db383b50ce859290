import { mkdir, readdir, rename, rm, rmdir, stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
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

/** Errors that say the data directory's parent takes no new directory of ours. */
const UNWRITABLE = new Set(['EACCES', 'EPERM', 'EROFS']);

/**
 * Creating a cluster takes seconds, and one cut short (the first start stopped) leaves a directory PGlite
 * then aborts on, with no word of where. So the cluster is built beside its place and moved in whole: the
 * data directory either holds a finished cluster or does not exist. A build left by a stopped start
 * (`<dataDir>.initializing`) is unfinished by definition, so the next start throws it away. A data directory
 * that is a mount point (a volume mounted right there) cannot be replaced, and its parent may be read-only:
 * there, and wherever the parent takes no directory, the cluster is built in place, as PGlite does.
 */
async function buildingPlace(directory: string): Promise<string> {
  const [own, parent] = await Promise.all([stat(directory), stat(dirname(directory))]);
  if (own.dev !== parent.dev) return directory;
  const building = `${directory}.initializing`;
  await rm(building, { recursive: true, force: true });
  try {
    await mkdir(building);
  } catch (error) {
    if (UNWRITABLE.has((error as NodeJS.ErrnoException).code ?? '')) return directory;
    throw error;
  }
  return building;
}

async function createCluster(dataDir: string, building: string, prepared: PreparedPgliteThread): Promise<PgliteThread> {
  if (building === dataDir) return prepared.open({ dataDir });
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
  let building: string | undefined;
  try {
    if (await holdsNothing(directory)) {
      await mkdir(directory, { recursive: true });
      building = await buildingPlace(directory);
    }
  } catch (error) {
    await prepared.cancel();
    throw error;
  }
  return building === undefined ? openCluster(directory, prepared) : createCluster(directory, building, prepared);
}
