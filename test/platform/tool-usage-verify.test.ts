import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ExportPage } from '../../src/platform/tool-usage/schemas.js';
import { verifyExport } from '../../src/platform/tool-usage/verify-export.js';
import { manualClock } from '../helpers/clock.js';
import { runCli } from '../helpers/cli.js';
import { createTestPlatform, type TestPlatform } from './helpers.js';
import { signingKeys, usageOf } from './tool-usage-testing.js';

describe('toolyard platform verify-export, on a real export', () => {
  let platform: TestPlatform;
  let directory: string;
  let jwksFile: string;
  let jwks: { keys: Record<string, unknown>[] };
  let otherJwksFile: string;
  let pages: ExportPage[];

  const clone = (): ExportPage[] => structuredClone(pages);
  const write = async (name: string, content: unknown) => {
    const file = join(directory, name);
    await writeFile(file, typeof content === 'string' ? content : JSON.stringify(content));
    return file;
  };
  const recordAt = (copy: ExportPage[], sequence: number) => {
    const record = copy.flatMap((page) => page.records).find((candidate) => candidate.sequence === sequence);
    if (!record) throw new Error(`no record ${sequence}`);
    return record;
  };

  beforeAll(async () => {
    const keys = await signingKeys('k1');
    jwks = keys.jwks;
    platform = await createTestPlatform({ clock: manualClock(new Date('2026-11-26T00:00:00Z')), config: { signing: keys.config, toolUsage: { checkpointEvery: 3 } } });
    for (let index = 0; index < 10; index++) await platform.features.toolUsage.record(usageOf({ tool_name: `tool-${index}`, occurred_at: `2026-11-25T10:00:0${index}.000Z` }));
    pages = [];
    let cursor: string | undefined;
    do {
      const { body } = await platform.call<ExportPage>('GET', `/v1/tool-usage/export?gateway_id=default&limit=4${cursor ? `&cursor=${cursor}` : ''}`);
      pages.push(body);
      cursor = body.next_cursor;
    } while (cursor);
    directory = await mkdtemp(join(tmpdir(), 'toolyard-verify-export-'));
    jwksFile = await write('jwks.json', (await platform.call('GET', '/.well-known/jwks.json')).body);
    otherJwksFile = await write('other-jwks.json', (await signingKeys('k2')).jwks);
  });
  afterAll(async () => {
    await platform.dispose();
  });

  it('passes an untouched export, given as pages or as one page', async () => {
    expect(pages.map((page) => page.checkpoints.map((checkpoint) => checkpoint.sequence))).toEqual([[3], [6], [9]]);
    const all = await runCli(['platform', 'verify-export', await write('pages.json', pages), '--jwks', jwksFile]);
    expect(all).toEqual({ code: 0, output: 'ok chain=default records=1..10 signed_through=9\n' });
    const one = await runCli(['platform', 'verify-export', await write('page.json', pages[0]), '--jwks', jwksFile, '--json']);
    expect(one.code).toBe(0);
    expect(JSON.parse(one.output)).toEqual({ status: 'ok', chain: 'default', records: '1..4', signed_through: 3 });
  });

  it('names the record whose usage was changed', async () => {
    const copy = clone();
    const record = recordAt(copy, 5);
    record.usage.tool_name = 'something-else';
    const result = await runCli(['platform', 'verify-export', await write('changed.json', copy), '--jwks', jwksFile]);
    expect(result).toEqual({ code: 1, output: `broken chain=default sequence=5 record=${record.id} reason=record_hash_mismatch\n` });
  });

  it('reports a removed record as a gap, which --allow-gaps accepts', async () => {
    const copy = clone();
    const [, second] = copy;
    second?.records.splice(0, 1);
    const file = await write('gap.json', copy);
    const next = recordAt(copy, 6);
    expect(await runCli(['platform', 'verify-export', file, '--jwks', jwksFile])).toEqual({ code: 1, output: `broken chain=default sequence=6 record=${next.id} reason=gap\n` });
    const allowed = await runCli(['platform', 'verify-export', file, '--jwks', jwksFile, '--allow-gaps', '--json']);
    expect(allowed.code).toBe(0);
    expect(JSON.parse(allowed.output)).toEqual({ status: 'ok', chain: 'default', records: '1..10', signed_through: 9 });
  });

  it('reports a bad signature and a key the JWKS does not hold', async () => {
    const copy = clone();
    const checkpoint = copy[1]?.checkpoints[0];
    if (!checkpoint) throw new Error('no checkpoint');
    checkpoint.signed_at = '2026-11-25T00:00:00.000Z';
    const bad = await runCli(['platform', 'verify-export', await write('bad-signature.json', copy), '--jwks', jwksFile]);
    expect(bad).toEqual({ code: 1, output: `broken chain=default sequence=6 record=${recordAt(copy, 6).id} reason=bad_signature\n` });
    const unknown = await runCli(['platform', 'verify-export', await write('pages-again.json', pages), '--jwks', otherJwksFile, '--json']);
    expect(unknown.code).toBe(1);
    expect(JSON.parse(unknown.output)).toEqual({ status: 'broken', chain: 'default', sequence: 3, record: recordAt(pages, 3).id, reason: 'unknown_key' });
  });

  it('exits 2 on input that is not an export', async () => {
    const result = await runCli(['platform', 'verify-export', await write('not-an-export.json', { items: [] }), '--jwks', jwksFile]);
    expect(result.code).toBe(2);
    expect(result.output).toMatch(/not an export page/);
  });

  it('finds the lowest failing link; at one sequence the record wins over its checkpoint', async () => {
    const keys = jwks.keys;
    const impostor = (await signingKeys('k1')).jwks.keys;
    expect(await verifyExport(pages, impostor, { allowGaps: false })).toEqual([{ status: 'broken', chain: 'default', sequence: 3, record: recordAt(pages, 3).id, reason: 'bad_signature' }]);

    const both = clone();
    recordAt(both, 9).usage.outcome = 'error';
    const checkpoint = both[2]?.checkpoints[0];
    if (checkpoint) checkpoint.chain_hash = 'f'.repeat(64);
    expect(await verifyExport(both, keys, { allowGaps: false })).toEqual([{ status: 'broken', chain: 'default', sequence: 9, record: recordAt(both, 9).id, reason: 'record_hash_mismatch' }]);

    const mismatch = clone();
    const late = mismatch[2]?.checkpoints[0];
    if (late) late.chain_hash = 'f'.repeat(64);
    expect(await verifyExport(mismatch, keys, { allowGaps: false })).toEqual([expect.objectContaining({ sequence: 9, reason: 'bad_signature' })]);

    const repeated = clone();
    repeated[0]?.records.push(structuredClone(recordAt(repeated, 2)));
    expect(await verifyExport(repeated, keys, { allowGaps: false })).toEqual([expect.objectContaining({ sequence: 2, reason: 'duplicate_sequence' })]);

    const relinked = clone();
    recordAt(relinked, 7).prev_hash = '1'.repeat(64);
    expect(await verifyExport(relinked, keys, { allowGaps: false })).toEqual([expect.objectContaining({ sequence: 7, reason: 'record_hash_mismatch' })]);
  });
});
