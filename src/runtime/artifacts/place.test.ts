import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { writeTree } from './artifacts-testing.js';
import { placeFolders } from './place.js';

describe('placing a skill into several client folders', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'toolyard-place-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('replaces every target and leaves no staging or backup folder behind', async () => {
    const source = await writeTree(join(dir, 'source'), { 'SKILL.md': 'new' });
    await writeTree(join(dir, 'a', 'code-review'), { 'SKILL.md': 'old', 'stale.md': 'x' });
    await placeFolders(source, [join(dir, 'a', 'code-review'), join(dir, 'b', 'code-review')]);
    expect(await readdir(join(dir, 'a'))).toEqual(['code-review']);
    expect(await readdir(join(dir, 'a', 'code-review'))).toEqual(['SKILL.md']);
    expect(await readFile(join(dir, 'b', 'code-review', 'SKILL.md'), 'utf8')).toBe('new');
  });

  it('puts back what every target held when one of them cannot be written', async () => {
    const source = await writeTree(join(dir, 'source'), { 'SKILL.md': 'new' });
    await writeTree(join(dir, 'a', 'code-review'), { 'SKILL.md': 'old' });
    // a file where the second target's parent folder should be
    await mkdir(join(dir, 'b'));
    await writeFile(join(dir, 'b', 'skills'), 'not a folder');
    await expect(placeFolders(source, [join(dir, 'a', 'code-review'), join(dir, 'b', 'skills', 'code-review'), join(dir, 'c', 'code-review')])).rejects.toThrow();
    expect(await readFile(join(dir, 'a', 'code-review', 'SKILL.md'), 'utf8')).toBe('old');
    expect(await readdir(join(dir, 'a'))).toEqual(['code-review']);
    await expect(readdir(join(dir, 'c'))).rejects.toThrow('ENOENT');
  });
});
