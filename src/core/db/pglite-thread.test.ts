import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Worker } from 'node:worker_threads';
import { PGlite } from '@electric-sql/pglite';
import { Decimal } from 'decimal.js';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { emptyClusterDump } from './database-testing.js';
import { embeddedDatabase } from './database.js';
import { startPgliteThread, type PgliteThread } from './pglite-thread.js';

const workers = vi.hoisted(() => [] as Worker[]);
// records each thread the engine starts, so a test can end one as a crash would
vi.mock('node:worker_threads', async (importOriginal) => {
  const original = await importOriginal<typeof import('node:worker_threads')>();
  class RecordedWorker extends original.Worker {
    constructor(...args: ConstructorParameters<typeof original.Worker>) {
      super(...args);
      workers.push(this);
    }
  }
  return { ...original, Worker: RecordedWorker };
});

const ROWS = `select now() as ts, '2024-02-29'::date as day, 1.50::numeric as money, 12::int8 as small8,
  9007199254740993::int8 as big8, 7::int4 as four, 1.5::float8 as float, true as yes, false as no, null::text as nothing,
  '{"a":[1,{"b":null}],"s":"x"}'::jsonb as doc, array[1,2,3]::int[] as ints, array['a','b']::text[] as texts,
  '\\x00ff10'::bytea as bytes, 'e3b0c442-98fc-1c14-9afb-f4c8996fb924'::uuid as id`;

const PARAMS_SQL = `select $1::bytea as buffer, $2::bytea as bytes, $3::timestamptz as at, $4::int[] as ints,
  $5::jsonb as doc, $6::int8 as big, $7::numeric as money, $8::text as text, $9::int4 as nothing`;
const params = () => [Buffer.from('hello'), new Uint8Array([1, 2, 3]), new Date('2025-01-02T03:04:05.678Z'), [4, 5], { k: ['v', 1, null] }, 12345678901234n, new Decimal('10.25'), 'plain', null];

async function failure(work: Promise<unknown>): Promise<Record<string, unknown>> {
  const error = await work.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(Error);
  // the stack says where the error was rebuilt, which is no part of what callers read
  const keys = Object.getOwnPropertyNames(error).filter((key) => key !== 'stack');
  return Object.fromEntries(keys.map((key) => [key, (error as Record<string, unknown>)[key]]));
}

describe('PGlite on its own thread', () => {
  let inThread: PGlite;
  let thread: PgliteThread;
  beforeAll(async () => {
    inThread = await PGlite.create({ loadDataDir: await emptyClusterDump() });
    thread = await startPgliteThread({ loadDataDir: await emptyClusterDump() });
    for (const engine of [inThread, thread]) {
      await engine.query('create table items (id int primary key, name text not null, size int check (size > 0))', []);
    }
  });
  afterAll(async () => {
    await thread.close();
    await inThread.close();
  });

  it('returns every value as PGlite gives it in-thread', async () => {
    const [expected, actual] = await Promise.all([inThread.query<Record<string, unknown>>(ROWS), thread.query(ROWS, [])]);
    const row = (actual.rows[0] ?? {}) as Record<string, unknown>;
    expect({ ...row, ts: undefined }).toEqual({ ...expected.rows[0], ts: undefined });
    expect(row.ts).toBeInstanceOf(Date);
    expect(row.money).toBe('1.50');
    expect(row.small8).toBe(12);
    expect(row.big8).toBe(9007199254740993n);
    expect(row.bytes).toEqual(new Uint8Array([0, 255, 16]));
    expect(row.doc).toEqual({ a: [1, { b: null }], s: 'x' });
  });

  it('sends parameters as the in-thread engine reads them', async () => {
    const [expected, actual] = await Promise.all([inThread.query(PARAMS_SQL, params()), thread.query(PARAMS_SQL, params())]);
    expect(actual.rows).toEqual(expected.rows);
    expect(actual.rows[0]).toMatchObject({ buffer: new Uint8Array(Buffer.from('hello')), money: '10.25', big: 12345678901234, text: 'plain', nothing: null });
  });

  it('counts the rows a statement changed', async () => {
    const inserted = await thread.query('insert into items values ($1, $2, 1), ($3, $4, 1)', [1, 'one', 2, 'two']);
    expect(inserted).toEqual({ rows: [], affectedRows: 2 });
    expect(await thread.query('update items set size = 2 where id = $1', [1])).toEqual({ rows: [], affectedRows: 1 });
  });

  it('rejects with the error PGlite raises, every field included', async () => {
    for (const engine of [inThread, thread]) await engine.query('insert into items values (1, $1, 1) on conflict do nothing', ['one']);
    const cases: [string, unknown[]][] = [
      ['insert into items values (1, $1, 1)', ['again']],
      ['insert into items values (9, null, 1)', []],
      ['insert into items values (9, $1, 0)', ['zero']],
      ['select * from nowhere', []],
      ['select $1::text', [{ not: 'text' }]],
    ];
    for (const [statement, values] of cases) {
      const [expected, actual] = await Promise.all([failure(inThread.query(statement, values)), failure(thread.query(statement, values))]);
      expect(actual).toEqual(expected);
    }
    const duplicate = await failure(thread.query(`insert into items select 1, 'x', 1 where $1::bytea is not null`, [Buffer.from('x')]));
    expect(duplicate).toMatchObject({ code: '23505', constraint: 'items_pkey', table: 'items', schema: 'public', severity: 'ERROR', detail: 'Key (id)=(1) already exists.' });
    expect(duplicate.params).toEqual([Buffer.from('x')]);
    expect(Buffer.isBuffer((duplicate.params as unknown[])[0])).toBe(true);
  });

  it('answers a statement run again and again with the parameters of each run', async () => {
    const sizes = Array.from({ length: 40 }, (_, index) => index + 1);
    const answers = await Promise.all(sizes.map((size) => thread.query('select $1::int * 2 as doubled, $2::text as name', [size, `n${String(size)}`])));
    expect(answers.map((answer) => answer.rows[0])).toEqual(sizes.map((size) => ({ doubled: size * 2, name: `n${String(size)}` })));
  });

  it('answers every statement after more distinct ones ran than it keeps prepared', async () => {
    const texts = Array.from({ length: 300 }, (_, index) => `select ${String(index)}::int as n, $1::text as tag`);
    for (const [index, text] of [...texts, ...texts.slice(0, 10)].entries()) {
      expect((await thread.query(text, [`t${String(index)}`])).rows).toEqual([{ n: index % 300, tag: `t${String(index)}` }]);
    }
  });

  it('keeps a statement prepared for its next run unless its text is long', async () => {
    const prepared = async (marker: string) =>
      (await thread.query(`select count(*)::int as n from pg_prepared_statements where statement like '%' || $1 || '%'`, [marker])).rows[0];
    const long = `select $1::int as n /* long-text ${'x'.repeat(9000)} */`;
    expect((await thread.query(long, [7])).rows).toEqual([{ n: 7 }]);
    expect(await prepared('long-text')).toEqual({ n: 0 });
    expect((await thread.query('select $1::int as n /* short-text */', [8])).rows).toEqual([{ n: 8 }]);
    expect(await prepared('short-text')).toEqual({ n: 1 });
    // a transaction that changed no table keeps them through its rollback
    await thread.query('begin', []);
    await thread.query('select $1::int as n /* short-text */', [9]);
    await thread.query('rollback', []);
    expect(await prepared('short-text')).toEqual({ n: 1 });
  });

  it('reads a table altered after a statement on it ran', async () => {
    await thread.query('create table altered (id int)', []);
    await thread.query('insert into altered values ($1)', [1]);
    expect((await thread.query('select * from altered where id = $1', [1])).rows).toEqual([{ id: 1 }]);
    await thread.query(`alter table altered add column note text not null default 'added'`, []);
    expect((await thread.query('select * from altered where id = $1', [1])).rows).toEqual([{ id: 1, note: 'added' }]);
    await thread.query('begin', []);
    await thread.query('alter table altered drop column note', []);
    expect((await thread.query('select * from altered where id = $1', [1])).rows).toEqual([{ id: 1 }]);
    await thread.query('rollback', []);
    expect((await thread.query('select * from altered where id = $1', [1])).rows).toEqual([{ id: 1, note: 'added' }]);
  });

  it('reads each cursor with its own columns through the same FETCH statement', async () => {
    const read = async (query: string) => {
      await thread.query('begin', []);
      await thread.query(`declare reading no scroll cursor for ${query}`, []);
      const { rows } = await thread.query('fetch 10 from reading', []);
      await thread.query('commit', []);
      return rows;
    };
    expect(await read(`select 1 as one, 'a' as letter`)).toEqual([{ one: 1, letter: 'a' }]);
    expect(await read(`select now()::date - now()::date as days, true as yes`)).toEqual([{ days: 0, yes: true }]);
  });

  it('keeps the statement and its parameters out of what a logger prints of the error', async () => {
    const error = (await thread.query('select $1::int', ['a-personal-value']).catch((reason: unknown) => reason)) as Error & { params?: unknown; query?: unknown };
    expect(error).toBeInstanceOf(Error);
    expect(error.params).toEqual(['a-personal-value']);
    expect(error.query).toBe('select $1::int');
    expect(Object.keys(error)).not.toEqual(expect.arrayContaining(['params']));
    expect(Object.keys(error)).not.toEqual(expect.arrayContaining(['query']));
    expect(JSON.stringify(error)).not.toContain('a-personal-value');
  });
});

describe('the embedded database on a thread', () => {
  it('keeps a transaction to itself while other queries wait for it', async () => {
    const database = embeddedDatabase<{ seen: { n: number } }>(await startPgliteThread({ loadDataDir: await emptyClusterDump() }));
    try {
      const { db } = database;
      await sql`create table seen (n int)`.execute(db);
      let inside!: () => void;
      const entered = new Promise<void>((resolve) => (inside = resolve));
      let finish!: () => void;
      const gate = new Promise<void>((resolve) => (finish = resolve));
      const transaction = db.transaction().execute(async (trx) => {
        await trx.insertInto('seen').values({ n: 1 }).execute();
        inside();
        await gate;
        await trx.insertInto('seen').values({ n: 2 }).execute();
      });
      await entered;
      const outside = db.selectFrom('seen').select((eb) => eb.fn.countAll<number>().as('rows')).executeTakeFirstOrThrow();
      finish();
      await transaction;
      expect(await outside).toEqual({ rows: 2 });
    } finally {
      await database.close();
    }
  });

  it('keeps the data of a directory after close, and refuses queries once closed', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'toolyard-pglite-thread-'));
    try {
      const first = await startPgliteThread({ dataDir, loadDataDir: await emptyClusterDump() });
      await first.query('create table kept (v text)', []);
      await first.query('insert into kept values ($1)', ['still here']);
      await first.close();
      await expect(first.query('select 1', [])).rejects.toThrow(/PGlite is closed/);
      await first.close();

      const reopened = await startPgliteThread({ dataDir });
      try {
        expect((await reopened.query('select v from kept', [])).rows).toEqual([{ v: 'still here' }]);
      } finally {
        await reopened.close();
      }
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  it('refuses to start where PGlite cannot open its directory, with the reason PGlite gives', async () => {
    const directory = await mkdtemp(join(tmpdir(), 'toolyard-pglite-thread-'));
    try {
      const notADirectory = join(directory, 'file');
      await writeFile(notADirectory, 'not a data directory');
      await expect(startPgliteThread({ dataDir: notADirectory })).rejects.toMatchObject({ name: 'ExitStatus', message: 'Program terminated with exit(1)' });
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  });

  it('rejects the queries in flight and later ones when its thread dies', async () => {
    const engine = await startPgliteThread({ loadDataDir: await emptyClusterDump() });
    const inFlight = engine.query('select pg_sleep(5)', []);
    const worker = workers.at(-1);
    expect(worker).toBeDefined();
    await worker?.terminate();
    await expect(inFlight).rejects.toThrow(/PGlite is closed: its thread exited/);
    await expect(engine.query('select 1', [])).rejects.toThrow(/PGlite is closed/);
    await engine.close();
  });

  it('never keeps the process alive once idle or closed', async () => {
    const directory = await mkdtemp(join(tmpdir(), 'toolyard-pglite-thread-'));
    try {
      const dump = join(directory, 'cluster.tar');
      await writeFile(dump, Buffer.from(await (await emptyClusterDump()).arrayBuffer()));
      // under tsx, as the benchmarks and scripts run; the child ends only if no thread holds it
      const script = `
        import { readFile } from 'node:fs/promises';
        import { startPgliteThread } from './src/core/db/pglite-thread.ts';
        const loadDataDir = new Blob([await readFile(process.env.CLUSTER_DUMP)]);
        const closed = await startPgliteThread({ loadDataDir });
        await closed.query('select 1', []);
        await closed.close();
        const idle = await startPgliteThread({ loadDataDir });
        console.log(JSON.stringify((await idle.query('select 2 as n', [])).rows));`;
      const run = promisify(execFile)(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
        timeout: 50_000,
        env: { ...process.env, CLUSTER_DUMP: dump },
      });
      expect((await run).stdout.trim()).toBe('[{"n":2}]');
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  });
});
