import assert from 'node:assert/strict';
import {
  createBatchingWriter,
  createBigQueryWriter,
  type InsertAll,
  WRITE_API_ONLY,
} from '../../adapters/bigquery-writer.ts';
import type { InsertRow, RowRejection } from '../../core/warehouse/rows.ts';
import { type Harness, startHarness } from '../../emulators/bigquery/test/support/helpers.ts';

const row = (id: string, extra: Record<string, unknown> = {}): InsertRow => ({
  insertId: id,
  json: { event_id: id, ...extra },
});

/** A fake insertAll that records requests and rejects rows whose json has `bad: true`. */
function fakeInsert(behaviour: { fail?: Error } = {}) {
  const calls: { table: string; ids: string[] }[] = [];
  const insert: InsertAll = async (table, rows) => {
    calls.push({ table, ids: rows.map((r) => r.insertId) });
    if (behaviour.fail) throw behaviour.fail;
    const bad = rows.flatMap((r, i) => (r.json['bad'] ? [i] : []));
    if (bad.length === 0) return [];
    // Like BigQuery with skipInvalidRows=false: the invalid rows get `invalid`, the rest `stopped`.
    return rows.map(
      (_r, i): RowRejection =>
        bad.includes(i)
          ? { index: i, reason: 'invalid', message: 'no such field: bad.' }
          : { index: i, reason: 'stopped', message: '' },
    );
  };
  return { insert, calls };
}

describe('storage: micro-batching BigQuery writer', () => {
  it('groups concurrent writes to one table into one insertAll request', async () => {
    const { insert, calls } = fakeInsert();
    const writer = createBatchingWriter(insert, { windowMs: 5 });
    const results = await Promise.all([
      writer.write('events', [row('a')]),
      writer.write('events', [row('b'), row('c')]),
      writer.write('invalid_events', [row('x')]),
    ]);
    assert.deepEqual(results, [[], [], []]);
    assert.deepEqual(calls, [
      { table: 'events', ids: ['a', 'b', 'c'] },
      { table: 'invalid_events', ids: ['x'] },
    ]);
    assert.equal(writer.requests, 2);
  });

  it('answers each writer with its own rejections and resends the rows that were only stopped', async () => {
    const { insert, calls } = fakeInsert();
    const writer = createBatchingWriter(insert, { windowMs: 2 });
    const [first, second] = await Promise.all([
      writer.write('events', [row('a'), row('b', { bad: true })]),
      writer.write('events', [row('c')]),
    ]);
    assert.deepEqual(first, [{ index: 1, reason: 'invalid', message: 'no such field: bad.' }]);
    assert.deepEqual(second, []);
    assert.deepEqual(calls[1], { table: 'events', ids: ['a', 'c'] });
  });

  it('rejects every writer of a request that failed, so nothing is acknowledged', async () => {
    const { insert } = fakeInsert({ fail: new Error('connect ECONNREFUSED') });
    const writer = createBatchingWriter(insert, { windowMs: 1 });
    const outcomes = await Promise.allSettled([
      writer.write('events', [row('a')]),
      writer.write('events', [row('b')]),
    ]);
    assert.deepEqual(
      outcomes.map((o) => o.status),
      ['rejected', 'rejected'],
    );
  });

  it('keeps each request under the row and byte limits', async () => {
    const { insert, calls } = fakeInsert();
    const writer = createBatchingWriter(insert, { windowMs: 1, maxRows: 3, maxBytes: 10_000 });
    const many = Array.from({ length: 7 }, (_, i) => row(`r${i}`));
    const big = [row('big1', { pad: 'x'.repeat(6000) }), row('big2', { pad: 'y'.repeat(6000) })];
    await Promise.all([writer.write('events', many), writer.write('wide', big)]);
    const events = calls.filter((c) => c.table === 'events').map((c) => c.ids.length);
    assert.deepEqual(events, [3, 3, 1]);
    assert.deepEqual(
      calls.filter((c) => c.table === 'wide').map((c) => c.ids),
      [['big1'], ['big2']],
    );
  });

  it('maps rejections of a write split over several requests back to its own indices', async () => {
    const { insert } = fakeInsert();
    const writer = createBatchingWriter(insert, { windowMs: 1, maxRows: 2 });
    const rejections = await writer.write('events', [row('a'), row('b'), row('c', { bad: true })]);
    assert.deepEqual(
      rejections.map((r) => r.index),
      [2],
    );
  });

  it('does not hold a write beyond its window when nothing else arrives', async () => {
    const { insert, calls } = fakeInsert();
    const writer = createBatchingWriter(insert, { windowMs: 0 });
    await writer.write('events', [row('only')]);
    assert.equal(calls.length, 1);
    await writer.flush();
  });

  it('gathers rows while a request is in flight and sends them together once it is answered', async () => {
    const calls: string[][] = [];
    let release: () => void = () => {};
    const insert: InsertAll = async (_table, rows) => {
      calls.push(rows.map((r) => r.insertId));
      if (calls.length === 1) await new Promise<void>((r) => (release = r));
      return [];
    };
    const writer = createBatchingWriter(insert, { windowMs: 1, maxInFlight: 1 });
    const first = writer.write('events', [row('a')]);
    await new Promise((r) => setTimeout(r, 10));
    assert.equal(calls.length, 1);
    // Three writes, each past its window, while the first request is still unanswered.
    const later = [writer.write('events', [row('b')])];
    await new Promise((r) => setTimeout(r, 5));
    later.push(writer.write('events', [row('c')]));
    await new Promise((r) => setTimeout(r, 5));
    later.push(writer.write('events', [row('d')]));
    await new Promise((r) => setTimeout(r, 5));
    assert.equal(calls.length, 1, 'nothing more is sent while the first request is in flight');
    release();
    assert.deepEqual(await Promise.all([first, ...later]), [[], [], [], []]);
    assert.deepEqual(calls, [['a'], ['b', 'c', 'd']]);
  });

  it('does not let a request that never answers hold the next batch beyond maxHoldMs', async () => {
    const calls: string[][] = [];
    const insert: InsertAll = async (_table, rows) => {
      calls.push(rows.map((r) => r.insertId));
      if (calls.length === 1) await new Promise(() => {}); // never answered
      return [];
    };
    const writer = createBatchingWriter(insert, { windowMs: 1, maxInFlight: 1, maxHoldMs: 30 });
    void writer.write('events', [row('stuck')]);
    await new Promise((r) => setTimeout(r, 5));
    assert.deepEqual(await writer.write('events', [row('next')]), []);
    assert.deepEqual(calls, [['stuck'], ['next']]);
  });

  describe('through the BigQuery client against the emulator', () => {
    let h: Harness;
    before(async () => {
      h = await startHarness('writer-test');
      const [ds] = await h.bq.createDataset('w');
      await ds.createTable('sync_rows', {
        schema: {
          fields: [
            { name: 'event_id', type: 'STRING', mode: 'REQUIRED' },
            { name: 'ts', type: 'TIMESTAMP' },
            { name: 'data', type: 'JSON' },
          ],
        },
      });
    });
    after(async () => {
      await h?.stop();
    });

    it('stores rows with their insertIds and answers per-row rejections by index', async () => {
      const writer = createBigQueryWriter(h.bq, 'w', { windowMs: 2 });
      const [first, second] = await Promise.all([
        writer.write('sync_rows', [
          row('w1', { ts: '2024-05-01T10:00:00.123Z', data: '{"a":1}' }),
          row('w2', { bad: true }),
        ]),
        writer.write('sync_rows', [row('w3'), row('w1')]),
      ]);
      assert.deepEqual(
        first.map((r) => [r.index, r.reason]),
        [[1, 'invalid']],
      );
      assert.match(first[0]?.message ?? '', /bad/);
      assert.deepEqual(second, []);
      const [rows] = await h.bq.query('SELECT event_id, ts FROM `writer-test.w.sync_rows` ORDER BY event_id');
      // w1 twice in one batch is stored once (insertId = event_id); w2 refused, not stored.
      assert.deepEqual(
        (rows as { event_id: string; ts: { value: string } | null }[]).map((r) => [
          r.event_id,
          r.ts?.value ?? null,
        ]),
        [
          ['w1', '2024-05-01T10:00:00.123Z'],
          ['w3', null],
        ],
      );
    });

    it('refuses the tables the Storage Write API writes, before any request', async () => {
      const writer = createBigQueryWriter(h.bq, 'w', { windowMs: 0 });
      // Dataset `w` has no such table: an insertAll sent would be answered "Not found".
      for (const table of WRITE_API_ONLY)
        await assert.rejects(writer.write(table, [row('x1')]), /Storage Write API only/, table);
      assert.deepEqual([...WRITE_API_ONLY].sort(), [
        'deliveries',
        'events',
        'hook_failures',
        'invalid_events',
      ]);
    });

    it('rejects the write when the request fails as a whole (no such table)', async () => {
      const writer = createBigQueryWriter(h.bq, 'w', { windowMs: 0 });
      await assert.rejects(writer.write('missing', [row('m1')]), /Not found/);
    });
  });
});
