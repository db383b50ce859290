import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { openDataDir } from './data-dir.js';

describe('the embedded database directory', () => {
  let parent: string;
  beforeEach(async () => {
    parent = await mkdtemp(join(tmpdir(), 'toolyard-data-dir-'));
  });
  afterEach(async () => {
    await rm(parent, { recursive: true, force: true });
  });

  it('starts after a first start was killed while it created the cluster, and keeps what it holds', async () => {
    const dataDir = join(parent, 'registry');
    const script = `import { openDataDir } from './src/core/db/data-dir.ts'; await openDataDir(process.env.DATA_DIR);`;
    const stopped = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { env: { ...process.env, DATA_DIR: dataDir }, stdio: 'ignore' });
    const exited = once(stopped, 'exit');
    // PGlite has begun writing the cluster's files: the moment `npm start` stopped by hand left a broken directory
    await vi.waitFor(() => expect(existsSync(join(parent, 'registry.initializing', 'base'))).toBe(true), { timeout: 30_000, interval: 20 });
    stopped.kill('SIGKILL');
    await exited;

    const first = await openDataDir(dataDir);
    await first.query('create table kept (v text)', []);
    await first.query(`insert into kept values ('still here')`, []);
    await first.close();
    expect(await readdir(parent)).toEqual(['registry']);

    const reopened = await openDataDir(dataDir);
    try {
      expect((await reopened.query('select v from kept', [])).rows).toEqual([{ v: 'still here' }]);
    } finally {
      await reopened.close();
    }
    // a child that loads the code, then three engine starts: slow on a loaded machine
  }, 90_000);

  it('names the directory and what to do when it holds a cluster PGlite cannot open', async () => {
    const dataDir = join(parent, 'registry');
    await mkdir(dataDir);
    await writeFile(join(dataDir, 'PG_VERSION'), '17\n');
    await expect(openDataDir(dataDir)).rejects.toThrow(
      `the embedded database in ${dataDir} cannot be opened (unreachable). If it was left by a first start stopped before the database was created, it holds no data: remove it and start again.`,
    );
    expect(await readdir(dataDir)).toEqual(['PG_VERSION']);
  });
});
