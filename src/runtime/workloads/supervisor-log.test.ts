import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogFile, timestamped } from './supervisor-log.js';

describe('log files', () => {
  const roots: string[] = [];
  afterEach(async () => {
    for (const root of roots.splice(0)) await rm(root, { recursive: true, force: true });
  });
  const tempPath = async (): Promise<string> => {
    const root = await mkdtemp(join(tmpdir(), 'toolyard-log-'));
    roots.push(root);
    return join(root, 'logs', 'w.log');
  };

  it('appends to what an earlier supervisor wrote', async () => {
    const path = await tempPath();
    const first = createLogFile({ path, maxBytes: 1024 });
    first.write('one\n');
    await first.close();
    const second = createLogFile({ path, maxBytes: 1024 });
    second.write('two\n');
    await second.close();
    expect(await readFile(path, 'utf8')).toBe('one\ntwo\n');
  });

  it('rotates to .1 past the size cap, keeping one older file', async () => {
    const path = await tempPath();
    const log = createLogFile({ path, maxBytes: 100 });
    for (let i = 0; i < 30; i += 1) log.write(`line ${String(i).padStart(2, '0')} ${'x'.repeat(12)}\n`);
    await log.close();
    expect((await stat(path)).size).toBeLessThanOrEqual(100);
    expect((await stat(`${path}.1`)).size).toBeLessThanOrEqual(100);
    const current = await readFile(path, 'utf8');
    expect(current).toContain('line 29');
    expect(await readFile(`${path}.1`, 'utf8')).not.toContain('line 00');
  });

  it('stamps each supervisor line with the time', async () => {
    const path = await tempPath();
    const log = createLogFile({ path, maxBytes: 1024 });
    timestamped(log, () => new Date('2026-03-01T10:00:00.000Z'))('status running');
    await log.close();
    expect(await readFile(path, 'utf8')).toBe('2026-03-01T10:00:00.000Z status running\n');
  });
});
