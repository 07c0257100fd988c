/**
 * The Bigtable emulator through Google's Node.js client, unchanged: tables and families with GC
 * rules, rows written and read back by keys, ranges and filters, CheckAndMutateRow racing
 * callers, ReadModifyWriteRow, garbage collection, row ranges dropped.
 */
import assert from 'node:assert/strict';
import { Bigtable, type Table } from '@google-cloud/bigtable';
import { clientOf, type Running, rawDataClient, start } from './support/harness.ts';

type Cells = Record<string, Record<string, { value: unknown; labels: string[]; timestamp: string }[]>>;

describe('bigtable emulator: the data and table admin APIs with @google-cloud/bigtable', () => {
  let running: Running;
  let bt: Bigtable;
  let n = 0;
  /** A new table `t<n>` with families cf (2 versions) and other (no rule). */
  const newTable = async (): Promise<Table> => {
    const [table] = await bt
      .instance('i')
      .createTable(`t${n++}`, { families: [{ name: 'cf', rule: { versions: 2 } }, 'other'] });
    return table;
  };
  const ids = async (table: Table, opts: Record<string, unknown> = {}): Promise<string[]> =>
    (await table.getRows(opts))[0].map((r) => r.id);

  before(async () => {
    running = await start();
    bt = clientOf(running.emulator.endpoint);
  });
  after(async () => {
    await bt.close();
    await running.stop();
  });

  it('creates a table with families and GC rules, lists, gets and deletes it', async () => {
    const instance = bt.instance('i');
    const [table] = await instance.createTable('admin', {
      families: [
        { name: 'short', rule: { age: { seconds: 3600 }, versions: 3, union: true } },
        { name: 'both', rule: { age: { seconds: 60 }, versions: 1, intersection: true } },
        'plain',
      ],
    });
    const [families] = await table.getFamilies();
    const rules = Object.fromEntries(families.map((f) => [f.id, f.metadata?.gcRule]));
    assert.deepEqual(
      (rules['short'] as { union: { rules: unknown[] } }).union.rules.map(
        (r) => (r as { rule: string }).rule,
      ),
      ['maxAge', 'maxNumVersions'],
    );
    assert.equal((rules['both'] as { rule: string }).rule, 'intersection');
    assert.equal(rules['plain'], null);
    const [tables] = await instance.getTables();
    assert.ok(tables.some((t) => t.id === 'admin'));
    await assert.rejects(instance.createTable('admin'), (e: { code: number }) => e.code === 6);
    await table.createFamily('added', { rule: { versions: 1 } });
    await table.family('plain').delete();
    assert.deepEqual((await table.getFamilies())[0].map((f) => f.id).sort(), ['added', 'both', 'short']);
    await table.delete();
    assert.equal((await table.exists())[0], false);
  });

  it('is found through BIGTABLE_EMULATOR_HOST, as the gcloud emulator is', async () => {
    const before = process.env['BIGTABLE_EMULATOR_HOST'];
    process.env['BIGTABLE_EMULATOR_HOST'] = running.emulator.endpoint;
    const viaEnv = new Bigtable({ projectId: 'p', metricsEnabled: false });
    try {
      const [table] = await viaEnv.instance('env').createTable('by-env', { families: ['cf'] });
      await table.row('r').save({ cf: { q: 'v' } });
      assert.deepEqual(await ids(table), ['r']);
    } finally {
      if (before === undefined) delete process.env['BIGTABLE_EMULATOR_HOST'];
      else process.env['BIGTABLE_EMULATOR_HOST'] = before;
      await viaEnv.close();
    }
  });

  it('reads rows back in key byte order, by keys, ranges, prefix and limit', async () => {
    const table = await newTable();
    const keys = ['b', 'a', 'c1', 'c2', 'd', '\u00ff'];
    await table.insert(keys.map((key) => ({ key, data: { cf: { q: `v-${key}` } } })));
    assert.deepEqual(await ids(table), ['a', 'b', 'c1', 'c2', 'd', '\u00ff']);
    assert.deepEqual(await ids(table, { keys: ['d', 'a', 'zz'] }), ['a', 'd']);
    assert.deepEqual(await ids(table, { start: 'b', end: 'c2' }), ['b', 'c1', 'c2']);
    assert.deepEqual(
      await ids(table, {
        ranges: [{ start: { value: 'b', inclusive: false }, end: { value: 'd', inclusive: false } }],
      }),
      ['c1', 'c2'],
    );
    assert.deepEqual(await ids(table, { prefix: 'c' }), ['c1', 'c2']);
    assert.deepEqual(await ids(table, { limit: 2 }), ['a', 'b']);
    const [row] = await table.row('c1').get();
    assert.equal((row.data as Cells)['cf']?.['q']?.[0]?.value, 'v-c1');
  });

  it('streams a large scan in many responses, and stops when the caller stops reading', async () => {
    const table = await newTable();
    const keys = Array.from({ length: 1500 }, (_, i) => `row-${String(i).padStart(5, '0')}`);
    for (let i = 0; i < keys.length; i += 500)
      await table.insert(
        keys.slice(i, i + 500).map((key) => ({ key, data: { cf: { a: 'x'.repeat(1024), b: key } } })),
      );
    const [rows] = await table.getRows();
    assert.deepEqual(
      rows.map((r) => r.id),
      keys,
    );
    assert.ok(rows.every((r) => (r.data as Cells)['cf']?.['b']?.[0]?.value === r.id));
    const seen: string[] = [];
    await new Promise<void>((resolve, reject) => {
      const stream = table.createReadStream();
      stream.on('data', (row: { id: string }) => {
        seen.push(row.id);
        if (seen.length === 10) {
          stream.end();
          resolve();
        }
      });
      stream.on('error', reject);
    });
    assert.deepEqual(seen, keys.slice(0, 10));
    // The emulator still answers after the abandoned scan.
    assert.deepEqual(await ids(table, { limit: 1 }), [keys[0]]);
  });

  it('keeps versions newest first and applies the filters', async () => {
    const table = await newTable();
    const row = table.row('r');
    for (const [ts, v] of [
      [1000, 'old'],
      [3000, 'new'],
      [2000, 'mid'],
    ] as const)
      await row.save({ cf: { q: { value: v, timestamp: ts } } });
    await row.save({ cf: { z: 'zed', a: 'ay' }, other: { q: 'o' } });
    await table.row('s').save({ cf: { q: 'only' } });
    const cellsOf = async (filter: unknown, key = 'r'): Promise<Cells> => {
      const [rows] = await table.getRows({ keys: [key], filter });
      return (rows[0]?.data ?? {}) as Cells;
    };
    const all = await cellsOf([{ all: true }]);
    assert.deepEqual(
      all['cf']?.['q']?.map((c) => [c.value, c.timestamp]),
      [
        ['new', '3000'],
        ['mid', '2000'],
        ['old', '1000'],
      ],
    );
    assert.deepEqual(Object.keys(await cellsOf([{ family: /oth.*/ }])), ['other']);
    assert.deepEqual(
      Object.keys((await cellsOf([{ family: 'cf' }, { column: /[az]/ }]))['cf'] ?? {}).sort(),
      ['a', 'z'],
    );
    assert.deepEqual(
      (await cellsOf([{ value: 'mid|old' }]))['cf']?.['q']?.map((c) => c.value),
      ['mid', 'old'],
    );
    assert.deepEqual(
      (await cellsOf([{ column: { cellLimit: 1 } }]))['cf']?.['q']?.map((c) => c.value),
      ['new'],
    );
    assert.deepEqual(
      (await cellsOf([{ time: { start: new Date(2), end: new Date(3) } }]))['cf']?.['q']?.map((c) => c.value),
      ['mid'],
    );
    assert.deepEqual(
      Object.keys((await cellsOf([{ column: { family: 'cf', start: 'b', end: 'z' } }]))['cf'] ?? {}),
      ['q', 'z'],
    );
    assert.deepEqual(
      (await cellsOf([{ value: { start: 'n', end: { value: 'old', inclusive: false } } }]))['cf']?.['q']?.map(
        (c) => c.value,
      ),
      ['new'],
    );
    const limited = await cellsOf([{ row: { cellLimit: 2 } }]);
    assert.deepEqual(Object.keys(limited['cf'] ?? {}), ['a', 'q']);
    const offset = await cellsOf([{ row: { cellOffset: 5 } }]);
    assert.deepEqual(Object.keys(offset), ['other']);
    const stripped = await cellsOf([{ family: 'other' }, { value: { strip: true } }]);
    assert.equal(stripped['other']?.['q']?.[0]?.value, '');
    const labelled = await cellsOf([{ family: 'other' }, { label: 'seen' }]);
    assert.deepEqual(labelled['other']?.['q']?.[0]?.labels, ['seen']);
    const interleaved = await cellsOf([{ interleave: [[{ family: 'other' }], [{ column: 'z' }]] }]);
    assert.deepEqual(Object.keys(interleaved).sort(), ['cf', 'other']);
    const conditional = [
      { condition: { test: [{ column: 'z' }], pass: [{ family: 'other' }], fail: [{ column: 'q' }] } },
    ];
    assert.deepEqual(Object.keys(await cellsOf(conditional)), ['other']);
    assert.deepEqual(Object.keys((await cellsOf(conditional, 's'))['cf'] ?? {}), ['q']);
    assert.deepEqual(await ids(table, { filter: [{ row: /s/ }] }), ['s']);
    assert.deepEqual(await ids(table, { filter: [{ all: false }] }), []);
  });

  it('matches key, qualifier and value regexes byte for byte, \\C as any byte', async () => {
    const table = await newTable();
    await table.insert([
      { key: 'fe', data: { cf: { v: Buffer.from([0x00, 0xfe]) } } },
      { key: 'ff', data: { cf: { v: Buffer.from([0x00, 0xff]) } } },
      { key: 'text', data: { cf: { v: 'é\n' } } },
    ]);
    // The client escapes a Buffer's bytes into the pattern as they are.
    assert.deepEqual(await ids(table, { filter: [{ value: Buffer.from([0x00, 0xff]) }] }), ['ff']);
    assert.deepEqual(await ids(table, { filter: [{ value: '\\x00\\xfe' }] }), ['fe']);
    assert.deepEqual(await ids(table, { filter: [{ value: '\\x00\\C' }] }), ['fe', 'ff']);
    // `.` stops at a newline, \C does not; é is two bytes.
    assert.deepEqual(await ids(table, { filter: [{ value: 'é.' }] }), []);
    assert.deepEqual(await ids(table, { filter: [{ value: 'é\\C' }] }), ['text']);
    assert.deepEqual(await ids(table, { filter: [{ value: '\\C\\C\\C' }] }), ['text']);
    assert.deepEqual(await ids(table, { filter: [{ row: 'f\\C' }] }), ['fe', 'ff']);
  });

  it('CheckAndMutateRow is atomic: of 50 callers racing to create a row, exactly one wins', async () => {
    const table = await newTable();
    const row = table.row('claim');
    const results = await Promise.all(
      Array.from({ length: 50 }, async (_, i) => {
        const [matched] = await row.filter([{ all: true }], {
          onMatch: [],
          onNoMatch: [{ method: 'insert', data: { cf: { owner: `caller-${i}` } } }],
        });
        return { i, matched };
      }),
    );
    const winners = results.filter((r) => !r.matched);
    assert.equal(winners.length, 1);
    const [got] = await row.get();
    assert.deepEqual(
      (got.data as Cells)['cf']?.['owner']?.map((c) => c.value),
      [`caller-${winners[0]?.i}`],
    );
  });

  it('ReadModifyWriteRow increments 64-bit big-endian values and appends', async () => {
    const table = await newTable();
    const row = table.row('counter');
    await Promise.all(Array.from({ length: 20 }, () => row.increment('cf:n', 3)));
    const [value] = await row.increment('cf:n', -10);
    assert.equal(value, 50);
    await row.createRules([{ column: 'cf:log', append: 'a' }]);
    await row.createRules([{ column: 'cf:log', append: 'b' }]);
    const [got] = await row.get();
    assert.equal((got.data as Cells)['cf']?.['log']?.[0]?.value, 'ab');
  });

  it('collects cells past their GC rule eventually: readable until a collection', async () => {
    const table = await newTable();
    const row = table.row('gc');
    for (const ts of [1000, 2000, 3000]) await row.save({ cf: { q: { value: `v${ts}`, timestamp: ts } } });
    const versions = async () => ((await row.get())[0].data as Cells)['cf']?.['q']?.map((c) => c.value);
    assert.deepEqual(await versions(), ['v3000', 'v2000', 'v1000']);
    assert.ok((await running.emulator.collectGarbage()) >= 1);
    assert.deepEqual(await versions(), ['v3000', 'v2000']);
  });

  it('collects by max_age, and by a union or an intersection of rules', async () => {
    const [table] = await bt.instance('i').createTable(`gc${n++}`, {
      families: [
        { name: 'age', rule: { age: { seconds: 60 } } },
        { name: 'either', rule: { age: { seconds: 60 }, versions: 2, union: true } },
        { name: 'both', rule: { age: { seconds: 60 }, versions: 2, intersection: true } },
      ],
    });
    const now = Date.now();
    // Newest first: two fresh cells, then two older than the 60 s max_age.
    const stamps = [now, now - 1000, now - 120_000, now - 180_000].map((ms) => new Date(ms));
    const row = table.row('r');
    for (const family of ['age', 'either', 'both'])
      for (const timestamp of stamps)
        await row.save({ [family]: { q: { value: String(timestamp.getTime()), timestamp } } });
    const left = async () => {
      const data = (await row.get())[0].data as Cells;
      return Object.fromEntries(Object.entries(data).map(([f, cols]) => [f, cols['q']?.length]));
    };
    assert.deepEqual(await left(), { age: 4, both: 4, either: 4 });
    await running.emulator.collectGarbage();
    // max_age: the two old ones go. Union: whatever is old or past 2 versions (the same two).
    // Intersection: only what is old and past 2 versions (the two old ones are versions 3 and 4).
    assert.deepEqual(await left(), { age: 2, both: 2, either: 2 });
    const later = { q: { value: 'x', timestamp: new Date(now + 1000) } };
    await row.save({ both: later, either: later });
    await running.emulator.collectGarbage();
    // Three fresh cells in each: the oldest is past 2 versions but young, so the union collects
    // it and the intersection keeps it.
    assert.deepEqual(await left(), { age: 2, both: 3, either: 2 });
  });

  it('deletes cells, families and rows, and drops row ranges', async () => {
    const table = await newTable();
    await table.insert(
      ['a1', 'a2', 'b1'].map((key) => ({ key, data: { cf: { q: 'x', r: 'y' }, other: { q: 'z' } } })),
    );
    await table.row('a1').deleteCells(['cf:q']);
    await table.row('a2').deleteCells(['other']);
    const [a1] = await table.row('a1').get();
    assert.deepEqual(Object.keys((a1.data as Cells)['cf'] ?? {}), ['r']);
    const [a2] = await table.row('a2').get();
    assert.deepEqual(Object.keys(a2.data as Cells), ['cf']);
    await table.deleteRows('a');
    assert.deepEqual(await ids(table), ['b1']);
    await table.row('b1').delete();
    assert.deepEqual(await ids(table), []);
    await table.insert([{ key: 'c', data: { cf: { q: 'x' } } }]);
    await table.truncate();
    assert.deepEqual(await ids(table), []);
  });

  it('answers SampleRowKeys and PingAndWarm', async () => {
    const table = await newTable();
    await table.insert(
      Array.from({ length: 40 }, (_, i) => ({
        key: `k${String(i).padStart(2, '0')}`,
        data: { cf: { q: 'x'.repeat(4096) } },
      })),
    );
    const [samples] = await table.sampleRowKeys();
    assert.ok(samples.length >= 2, JSON.stringify(samples));
    const last = samples[samples.length - 1] as { key: Buffer; offset: string };
    assert.equal(last.key.length, 0);
    assert.ok(Number(last.offset) > 40 * 4096);
    const raw = rawDataClient(running.emulator.endpoint);
    try {
      assert.deepEqual(await raw.call('PingAndWarm', { name: 'projects/p/instances/i' }), {});
      await assert.rejects(
        raw.call('PingAndWarm', { name: 'projects/p' }),
        (e: { code: number }) => e.code === 3,
      );
    } finally {
      raw.close();
    }
  });
});
