import { appendFile, mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readLastLines, writeFileAtomic } from './files.js';

describe('state files', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'toolyard-files-'));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('reads the last lines of a log bigger than one read, or of its first bytes, and nothing for a missing file', async () => {
    const path = join(dir, 'server.log');
    const lines = Array.from({ length: 5000 }, (_, i) => `line ${String(i)} ${'x'.repeat(40)}`);
    await writeFile(path, `${lines.join('\n')}\n`);
    const size = (await stat(path)).size;
    await appendFile(path, 'written later\n');
    expect(await readLastLines(path, 3)).toBe(`${lines.slice(-2).join('\n')}\nwritten later\n`);
    expect(await readLastLines(path, 1000, size)).toBe(`${lines.slice(-1000).join('\n')}\n`);
    expect(await readLastLines(join(dir, 'absent.log'), 10)).toBe('');
  });

  it('replaces a file atomically with mode 0600 and leaves no temporary file behind', async () => {
    const path = join(dir, 'state', 'config.json');
    await writeFileAtomic(path, '{"a":1}');
    await writeFileAtomic(path, '{"a":2}');
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    expect(await readdir(join(dir, 'state'))).toEqual(['config.json']);
  });
});
