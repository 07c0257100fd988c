/**
 * The hand-written Bigtable messages (adapters/bigtable-wire.ts) against the real protos (those
 * of @google-cloud/bigtable-api, loaded as the twin loads them): the requests decode to what was
 * meant, and ReadRows answers merge as Bigtable's clients merge them, including what the twin
 * never sends (a value split across chunks, a row reset mid-way, rows across messages).
 */
import assert from 'node:assert/strict';
import type { MethodDefinition } from '@grpc/grpc-js';
import {
  decodeCheckAndMutateRow,
  decodeReadRows,
  encodeCheckAndMutateRow,
  encodeReadRow,
  re2Literal,
} from '../../adapters/bigtable-wire.ts';
import { loadServices } from '../../emulators/bigtable/protos.ts';

type Obj = Record<string, unknown>;
const method = (name: string) => loadServices().data[name] as MethodDefinition<Obj, Obj>;
const request = (name: string, bytes: Buffer): Obj => method(name).requestDeserialize(bytes);
const response = (name: string, message: Obj): Buffer => method(name).responseSerialize(message);
const chunk = (c: Obj): Obj => c;
const text = (b: unknown): string => Buffer.from(b as Uint8Array).toString('latin1');

describe('bigtable wire: requests as the protos read them', () => {
  it('CheckAndMutateRow: table, key, predicate, both mutation lists, app profile', () => {
    const bytes = encodeCheckAndMutateRow({
      tableName: 'projects/p/instances/i/tables/t',
      appProfileId: 'single',
      rowKey: 'sends#ab',
      predicate: {
        condition: {
          predicate: {
            chain: [{ cellsPerColumnLimit: 1 }, { qualifierRegex: 'v' }, { valueRegex: 'a\\.b' }],
          },
          ifTrue: { blockAll: true },
          ifFalse: { passAll: true },
        },
      },
      ifMatched: [{ deleteRow: true }, { setCell: { family: 'c', qualifier: 'f', value: '{"é":1}' } }],
      otherwise: [{ setCell: { family: 'c', qualifier: 'v', value: 'x' } }],
    });
    const r = request('CheckAndMutateRow', bytes);
    assert.equal(r['tableName'], 'projects/p/instances/i/tables/t');
    assert.equal(r['appProfileId'], 'single');
    assert.equal(text(r['rowKey']), 'sends#ab');
    const condition = (r['predicateFilter'] as Obj)['condition'] as Obj;
    const chain = ((condition['predicateFilter'] as Obj)['chain'] as Obj)['filters'] as Obj[];
    assert.equal(chain[0]?.['cellsPerColumnLimitFilter'], 1);
    assert.equal(text(chain[1]?.['columnQualifierRegexFilter']), 'v');
    assert.equal(text(chain[2]?.['valueRegexFilter']), 'a\\.b');
    assert.equal((condition['trueFilter'] as Obj)['blockAllFilter'], true);
    assert.equal((condition['falseFilter'] as Obj)['passAllFilter'], true);
    const matched = r['trueMutations'] as Obj[];
    assert.equal(matched[0]?.['mutation'], 'deleteFromRow');
    const set = matched[1]?.['setCell'] as Obj;
    assert.equal(set['familyName'], 'c');
    assert.equal(text(set['columnQualifier']), 'f');
    assert.equal(set['timestampMicros'], '-1', "the server's time");
    assert.equal(Buffer.from(set['value'] as Uint8Array).toString('utf8'), '{"é":1}');
    const otherwise = (r['falseMutations'] as Obj[])[0]?.['setCell'] as Obj | undefined;
    assert.equal(otherwise?.['familyName'], 'c');
  });

  it('CheckAndMutateRow: an interleave of two chains, each kept whole', () => {
    const bytes = encodeCheckAndMutateRow({
      tableName: 'projects/p/instances/i/tables/t',
      rowKey: 'sends#ab',
      predicate: {
        chain: [
          { cellsPerColumnLimit: 1 },
          {
            interleave: [
              { chain: [{ qualifierRegex: 'r' }, { valueRegex: 'a\\x20\\C*' }] },
              { chain: [{ qualifierRegex: 'v' }, { valueRegex: 'a' }] },
            ],
          },
        ],
      },
      ifMatched: [{ deleteRow: true }],
      otherwise: [],
    });
    const r = request('CheckAndMutateRow', bytes);
    const outer = ((r['predicateFilter'] as Obj)['chain'] as Obj)['filters'] as Obj[];
    assert.equal(outer.length, 2);
    assert.equal(outer[0]?.['cellsPerColumnLimitFilter'], 1);
    const branches = ((outer[1] as Obj)['interleave'] as Obj)['filters'] as Obj[];
    const shown = branches.map((b) =>
      ((b['chain'] as Obj)['filters'] as Obj[]).map((f) =>
        text(f['columnQualifierRegexFilter'] ?? f['valueRegexFilter']),
      ),
    );
    assert.deepEqual(shown, [
      ['r', 'a\\x20\\C*'],
      ['v', 'a'],
    ]);
  });

  it('ReadRows: one key, at most one row, the filter; the predicate answer read back', () => {
    const r = request(
      'ReadRows',
      encodeReadRow({
        tableName: 'projects/p/instances/i/tables/t',
        rowKey: 'sends#cd',
        filter: { cellsPerColumnLimit: 1 },
      }),
    );
    assert.deepEqual(((r['rows'] as Obj)['rowKeys'] as unknown[]).map(text), ['sends#cd']);
    assert.equal(r['rowsLimit'], '1');
    assert.equal((r['filter'] as Obj)['cellsPerColumnLimitFilter'], 1);
    assert.equal(r['appProfileId'] ?? '', '');
    assert.equal(decodeCheckAndMutateRow(response('CheckAndMutateRow', { predicateMatched: true })), true);
    assert.equal(decodeCheckAndMutateRow(response('CheckAndMutateRow', { predicateMatched: false })), false);
  });
});

describe('bigtable wire: ReadRows answers merged', () => {
  const read = (messages: Obj[][]) =>
    decodeReadRows(messages.map((chunks) => response('ReadRows', { chunks })));

  it('cells carry their family and qualifier forward; rows across messages; a split value joined', () => {
    const rows = read([
      [
        chunk({
          rowKey: Buffer.from('a'),
          familyName: { value: 'c' },
          qualifier: { value: Buffer.from('e') },
          timestampMicros: '2000',
          value: Buffer.from('1'),
        }),
        chunk({
          qualifier: { value: Buffer.from('f') },
          timestampMicros: '2000',
          value: Buffer.from('{"x"'),
          valueSize: 8,
        }),
      ],
      [
        chunk({ value: Buffer.from(':1}') }),
        chunk({ timestampMicros: '1000', value: Buffer.from('old'), commitRow: true }),
        chunk({
          rowKey: Buffer.from('b'),
          familyName: { value: 'c' },
          qualifier: { value: Buffer.from('v') },
          value: Buffer.from('t'),
          commitRow: true,
        }),
      ],
    ]);
    assert.deepEqual(
      rows.get('a')?.map((c) => [c.family, c.qualifier, c.timestampMicros, c.value.toString()]),
      [
        ['c', 'e', 2000, '1'],
        ['c', 'f', 2000, '{"x":1}'],
        ['c', 'f', 1000, 'old'],
      ],
    );
    assert.deepEqual(
      rows.get('b')?.map((c) => c.value.toString()),
      ['t'],
    );
  });

  it('a reset row drops what came before it; an empty answer is no row', () => {
    const rows = read([
      [
        chunk({
          rowKey: Buffer.from('a'),
          familyName: { value: 'c' },
          qualifier: { value: Buffer.from('v') },
          value: Buffer.from('stale'),
        }),
        chunk({ resetRow: true }),
        chunk({
          rowKey: Buffer.from('a'),
          familyName: { value: 'c' },
          qualifier: { value: Buffer.from('v') },
          value: Buffer.from('fresh'),
          commitRow: true,
        }),
      ],
    ]);
    assert.deepEqual(
      rows.get('a')?.map((c) => c.value.toString()),
      ['fresh'],
    );
    assert.equal(read([]).size, 0);
  });

  it('a stream cut inside a row or a split value throws', () => {
    const open = chunk({
      rowKey: Buffer.from('a'),
      familyName: { value: 'c' },
      qualifier: { value: Buffer.from('v') },
      value: Buffer.from('x'),
    });
    assert.throws(() => read([[open]]), /ended inside a row/);
    assert.throws(
      () => read([[{ ...open, valueSize: 4, commitRow: true }]]),
      /committed inside a split value/,
    );
    assert.throws(() => read([[chunk({ value: Buffer.from('x'), commitRow: true })]]), /before its row key/);
  });

  it('re2Literal escapes every byte but letters and digits', () => {
    assert.equal(re2Literal('ab12'), 'ab12');
    assert.equal(re2Literal('a.b*'), 'a\\x2eb\\x2a');
    assert.throws(() => re2Literal('é'), /ASCII only/);
  });
});
