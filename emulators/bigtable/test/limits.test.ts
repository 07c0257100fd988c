/**
 * What Bigtable refuses, the emulator refuses with the same gRPC status (limits.ts names each
 * limit's source): an unknown table or column family, an empty or over-long row key, an
 * over-long qualifier or value, too many mutations in a request, a malformed regular expression,
 * a timestamp finer than the table's millisecond granularity. A limit's edge itself is accepted.
 */
import assert from 'node:assert/strict';
import type { Bigtable, Table } from '@google-cloud/bigtable';
import { status } from '@grpc/grpc-js';
import { LIMITS } from '../limits.ts';
import { clientOf, type Running, rawDataClient, refusal, start } from './support/harness.ts';

const TABLE = 'projects/p/instances/i/tables/limits';

describe('bigtable emulator: refusals as Bigtable gives them', function () {
  this.timeout(120_000);
  let running: Running;
  let bt: Bigtable;
  let table: Table;
  let raw: ReturnType<typeof rawDataClient>;
  const setCell = (q = 'q', value = 'v') => ({
    setCell: {
      familyName: 'cf',
      columnQualifier: Buffer.from(q),
      timestampMicros: '-1',
      value: Buffer.from(value),
    },
  });

  before(async () => {
    running = await start();
    bt = clientOf(running.emulator.endpoint);
    [table] = await bt.instance('i').createTable('limits', { families: ['cf'] });
    raw = rawDataClient(running.emulator.endpoint);
  });
  after(async () => {
    raw.close();
    await bt.close();
    await running.stop();
  });

  it('an unknown table is NOT_FOUND, for reads, writes and admin', async () => {
    const missing = bt.instance('i').table('missing');
    const name = 'projects/p/instances/i/tables/missing';
    const write = await refusal(missing.row('r').save({ cf: { q: 'v' } }));
    assert.equal(write.code, status.NOT_FOUND);
    assert.match(write.details, new RegExp(`Table not found: ${name}$`));
    assert.equal((await refusal(missing.getRows())).code, status.NOT_FOUND);
    assert.equal((await refusal(missing.getMetadata())).code, status.NOT_FOUND);
    assert.equal((await refusal(missing.delete())).code, status.NOT_FOUND);
  });

  it('an unknown column family is NOT_FOUND', async () => {
    assert.deepEqual(await refusal(table.row('r').save({ nofamily: { q: 'v' } })), {
      code: status.NOT_FOUND,
      details: 'Requested column family not found.',
    });
    assert.equal((await refusal(table.row('r').increment('nofamily:n'))).code, status.NOT_FOUND);
  });

  it('an empty row key, or one over 4 KiB, is INVALID_ARGUMENT; 4 KiB is accepted', async () => {
    const empty = await refusal(
      raw.call('MutateRow', { tableName: TABLE, rowKey: Buffer.alloc(0), mutations: [setCell()] }),
    );
    assert.deepEqual(empty, { code: status.INVALID_ARGUMENT, details: 'Row keys must be non-empty' });
    const long = await refusal(table.row('k'.repeat(LIMITS.rowKeyBytes + 1)).save({ cf: { q: 'v' } }));
    assert.equal(long.code, status.INVALID_ARGUMENT);
    assert.match(long.details, /Row key is too large: 4097 bytes/);
    await table.row('k'.repeat(LIMITS.rowKeyBytes)).save({ cf: { q: 'v' } });
  });

  it('a column qualifier over 16 KiB is INVALID_ARGUMENT; 16 KiB is accepted', async () => {
    const long = await refusal(table.row('q').save({ cf: { ['q'.repeat(LIMITS.qualifierBytes + 1)]: 'v' } }));
    assert.equal(long.code, status.INVALID_ARGUMENT);
    assert.match(long.details, /Column qualifier is too large: 16385 bytes/);
    await table.row('q').save({ cf: { ['q'.repeat(LIMITS.qualifierBytes)]: 'v' } });
    const rmw = await refusal(table.row('q').increment(`cf:${'q'.repeat(LIMITS.qualifierBytes + 1)}`));
    assert.equal(rmw.code, status.INVALID_ARGUMENT);
    assert.match(rmw.details, /Column qualifier is too large/);
  });

  it('a cell value over 100 MiB is INVALID_ARGUMENT, and nothing of the row is written', async () => {
    const big = Buffer.alloc(LIMITS.valueBytes + 1, 1);
    const r = await refusal(
      raw.call('MutateRow', {
        tableName: TABLE,
        rowKey: Buffer.from('big'),
        mutations: [setCell('small'), { setCell: { ...setCell().setCell, value: big } }],
      }),
    );
    assert.equal(r.code, status.INVALID_ARGUMENT);
    assert.match(r.details, /Cell value is too large: 104857601 bytes/);
    assert.equal((await table.row('big').exists())[0], false);
  });

  it('more than 100,000 mutations in a request is INVALID_ARGUMENT; 100,000 are accepted', async () => {
    const many = (n: number) => Array.from({ length: n }, (_, i) => setCell(`c${i}`));
    const one = await refusal(
      raw.call('MutateRow', {
        tableName: TABLE,
        rowKey: Buffer.from('m'),
        mutations: many(LIMITS.mutationsPerRequest + 1),
      }),
    );
    assert.equal(one.code, status.INVALID_ARGUMENT);
    assert.match(one.details, /Too many mutations: 100001/);
    const entries = (n: number) =>
      Array.from({ length: n }, (_, i) => ({ rowKey: Buffer.from(`e${i}`), mutations: [setCell()] }));
    const bulk = await refusal(
      raw.stream('MutateRows', { tableName: TABLE, entries: entries(LIMITS.mutationsPerRequest + 1) }),
    );
    assert.equal(bulk.code, status.INVALID_ARGUMENT);
    assert.equal((await table.getRows({ prefix: 'e', limit: 1 }))[0].length, 0);
    const ok = await raw.stream('MutateRows', {
      tableName: TABLE,
      entries: entries(LIMITS.mutationsPerRequest),
    });
    const statuses = ok.flatMap((r) =>
      (r['entries'] as { status: { code: number } }[]).map((e) => e.status.code),
    );
    assert.equal(statuses.length, LIMITS.mutationsPerRequest);
    assert.ok(statuses.every((c) => c === status.OK));
  });

  it('a CheckAndMutateRow with neither true nor false mutations is INVALID_ARGUMENT', async () => {
    const r = await refusal(raw.call('CheckAndMutateRow', { tableName: TABLE, rowKey: Buffer.from('r') }));
    assert.equal(r.code, status.INVALID_ARGUMENT);
    assert.match(r.details, /No mutations provided/);
  });

  it('MutateRows answers a status per entry: the good ones are written', async () => {
    const [res] = await raw.stream('MutateRows', {
      tableName: TABLE,
      entries: [
        { rowKey: Buffer.from('good'), mutations: [setCell()] },
        {
          rowKey: Buffer.from('bad'),
          mutations: [{ setCell: { ...setCell().setCell, familyName: 'nope' } }],
        },
        { rowKey: Buffer.alloc(0), mutations: [setCell()] },
      ],
    });
    const entries = (res?.['entries'] ?? []) as { index: string; status: { code: number } }[];
    assert.deepEqual(
      entries.map((e) => [Number(e.index), e.status.code]),
      [
        [0, status.OK],
        [1, status.NOT_FOUND],
        [2, status.INVALID_ARGUMENT],
      ],
    );
    assert.equal((await table.row('good').exists())[0], true);
    assert.equal((await table.row('bad').exists())[0], false);
  });

  it('a malformed regular expression is INVALID_ARGUMENT, before any row is read', async () => {
    for (const filter of [[{ value: '(' }], [{ row: 'a[' }], [{ column: '*' }], [{ family: '(?' }]]) {
      const r = await refusal(table.getRows({ filter }));
      assert.equal(r.code, status.INVALID_ARGUMENT, JSON.stringify(filter));
      assert.match(r.details, /^Invalid .* regular expression/);
    }
  });

  it('a timestamp that is not a whole millisecond is INVALID_ARGUMENT; -1 is server time', async () => {
    const r = await refusal(table.row('ts').save({ cf: { q: { value: 'x', timestamp: 1234 } } }));
    assert.equal(r.code, status.INVALID_ARGUMENT);
    assert.match(r.details, /granularity/);
    const before = Date.now() * 1000;
    await raw.call('MutateRow', { tableName: TABLE, rowKey: Buffer.from('ts'), mutations: [setCell()] });
    const [row] = await table.row('ts').get();
    const ts = Number(
      (row.data as Record<string, Record<string, { timestamp: string }[]>>)['cf']?.['q']?.[0]?.timestamp,
    );
    assert.ok(ts >= before - 1000 && ts % 1000 === 0, String(ts));
  });

  it('refuses, never ignores, what it does not emulate; an increment of a non-64-bit value', async () => {
    const sink = await refusal(raw.stream('ReadRows', { tableName: TABLE, filter: { sink: true } }));
    assert.equal(sink.code, status.UNIMPLEMENTED);
    const view = await refusal(
      raw.call('MutateRow', {
        authorizedViewName: `${TABLE}/authorizedViews/v`,
        rowKey: Buffer.from('r'),
        mutations: [setCell()],
      }),
    );
    assert.equal(view.code, status.UNIMPLEMENTED);
    await table.row('text').save({ cf: { n: 'abc' } });
    const inc = await refusal(table.row('text').increment('cf:n'));
    assert.equal(inc.code, status.INVALID_ARGUMENT);
    assert.match(inc.details, /not a 64-bit big-endian integer/);
  });
});
