/**
 * The Storage Write API's fast row path (write-rows.ts): for every row it takes, its JSON text is
 * insertAll's prepared form of exactly the values the general path (write-streams.ts
 * `decodeRows`) stores; anything else (bad wire data, values of no text form, a row the general
 * path refuses) makes it give up on the whole append, so that the general path decides.
 */
import assert from 'node:assert/strict';
import bigqueryStorage from '@google-cloud/bigquery-storage';
import protobuf from 'protobufjs';
import { convertRow } from '../insert-rows.ts';
import { prepareRowText } from '../row-text.ts';
import { type FieldSchema, normaliseSchema } from '../schema.ts';
import { joinArrays } from '../tabledata.ts';
import { civilFromMicros } from '../time-text.ts';
import { fastRows, timestampText } from '../write-rows.ts';
import { decodeRows, type WriterSchema, writerSchema } from '../write-streams.ts';

const { adapt, protos } = bigqueryStorage;

// A table shape of the same kind as row-text.test.ts's, of the types with a text form.
// jscpd:ignore-start
const SCHEMA = [
  { name: 'id', type: 'STRING', mode: 'REQUIRED' },
  { name: 'at', type: 'TIMESTAMP', mode: 'REQUIRED' },
  { name: 'n', type: 'INT64' },
  { name: 'x', type: 'FLOAT64' },
  { name: 'ok', type: 'BOOL' },
  { name: 'data', type: 'JSON' },
  { name: 'geo', type: 'GEOGRAPHY' },
  { name: 'tags', type: 'STRING', mode: 'REPEATED' },
  { name: 'nums', type: 'INT64', mode: 'REPEATED' },
  {
    name: 'user',
    type: 'RECORD',
    fields: [
      { name: 'user_id', type: 'STRING' },
      { name: 'seen', type: 'TIMESTAMP', mode: 'REPEATED' },
    ],
  },
  { name: 'hits', type: 'RECORD', mode: 'REPEATED', fields: [{ name: 'k', type: 'INT64' }] },
];
// jscpd:ignore-end
const FIELDS = normaliseSchema(SCHEMA) as FieldSchema[];

/** The writer's schema as Google's client makes it from the table's, compiled as the emulator does. */
function schemaFor(fields: unknown[]): WriterSchema {
  const descriptor = adapt.convertStorageSchemaToProto2Descriptor(
    adapt.convertBigQuerySchemaToStorageTableSchema({ fields } as never),
    'root',
  );
  const bytes = protos.google.protobuf.DescriptorProto.encode(descriptor as never).finish();
  return writerSchema(bytes, normaliseSchema(fields) as FieldSchema[], 'entity');
}
const WRITER = schemaFor(SCHEMA);
/** A row's bytes written by hand, for wire data Google's client would not send. */
const wire = (write: (w: protobuf.Writer) => unknown) => (): Uint8Array => {
  const w = protobuf.Writer.create();
  write(w);
  return w.finish();
};
const encode = (row: Record<string, unknown>): Uint8Array =>
  WRITER.type.encode(WRITER.type.fromObject(row)).finish();

const AT = 1_764_064_800_123_456; // 2025-11-25T10:00:00.123456Z in microseconds
const ROWS: Record<string, unknown>[] = [
  { id: 'a', at: AT },
  { id: 'a', at: 1_764_064_800_000_000, n: 0, x: 0, ok: false, tags: [], nums: [] },
  { id: 'b', at: AT, n: 9007199254740991, x: 1.5e300, ok: true, data: '{"a": [1, 2.5, "é"]}' },
  { id: 'quote " back \\ slash \n tab \t nul \u0000 \u001f é 😀 \u2028', at: AT, geo: 'POINT(1 2)' },
  { id: 'c', at: 1000, data: '  "just a string" ', x: 5e-324, tags: ['x', '', 'y'], nums: [3, 0, 12] },
  { id: 'd', at: AT, user: { user_id: 'u', seen: [AT, 0] }, hits: [{ k: 1 }, {}, { k: 2 }] },
  { id: 'e', at: AT, user: {}, data: 'null' },
  { id: '', at: 9_007_199_254_740_991 }, // the last microsecond read as a safe integer (2255)
];

/** What the general path stores for `rows`, or its problems. */
function general(rows: readonly Uint8Array[]) {
  const { rows: decoded, problems } = decodeRows(WRITER, FIELDS, rows);
  return { values: decoded.map((r) => r.values), problems };
}

/** The fast path's rows, read back from its text, or undefined when it gave up. */
function fast(rows: readonly Uint8Array[], writer = WRITER, fields = FIELDS) {
  const out = fastRows(writer.type, fields)?.(rows);
  if (!out) return undefined;
  const parsed = JSON.parse(out.text.toString('utf8')) as Record<string, unknown>[];
  assert.equal(parsed.length, out.count);
  return parsed;
}

describe('bigquery emulator: the Storage Write API fast row path', () => {
  it('gives the prepared JSON text of exactly the values the general path stores', () => {
    const rows = ROWS.map(encode);
    const text = fast(rows);
    assert.ok(text, 'the fast path took the rows');
    const { values, problems } = general(rows);
    assert.deepEqual(problems, []);
    assert.equal(text.length, values.length);
    text.forEach((row, i) => {
      // Already in the text path's form: preparing it changes nothing.
      const copy = structuredClone(row);
      assert.equal(prepareRowText(FIELDS, copy), true, `row ${i} has a text form`);
      assert.deepEqual(copy, row);
      const converted = convertRow(FIELDS, row, false);
      assert.ok('values' in converted, `row ${i} converts`);
      assert.deepEqual(converted.values, values[i], `row ${i}`);
    });
    // Every column is written or left to NULL; a missing REPEATED one is an empty array.
    assert.deepEqual(text[0], { id: 'a', at: '2025-11-25T10:00:00.123456Z', tags: [], nums: [], hits: [] });
  });

  it('writes timestamps as the general path does', () => {
    assert.equal(timestampText(AT), '2025-11-25T10:00:00.123456Z');
    assert.equal(timestampText(9_007_199_254_740_991), '2255-06-05T23:47:34.740991Z');
    for (const us of [
      0, 1, 999_999, 1_000_000, 1_764_064_800_000_000, 1_764_064_800_000_001, -1, -1_000_001,
    ]) {
      const { date, time } = civilFromMicros(BigInt(us));
      assert.equal(timestampText(us), `${date}T${time}Z`, String(us));
    }
    // Spread over every day, second and fraction up to 2^53 µs (a fixed walk, not random).
    for (let us = 0, k = 0; k < 5000; k++, us = (us * 31 + 1_000_003_007_919) % 9_007_199_254_740_991) {
      const { date, time } = civilFromMicros(BigInt(us));
      assert.equal(timestampText(us), `${date}T${time}Z`, String(us));
    }
    // Before the year 1000: no text form (the general path's business).
    assert.equal(timestampText(-30_610_224_001_000_000), undefined);
    assert.equal(timestampText(-30_610_224_000_000_000), '1000-01-01T00:00:00Z');
  });

  /** Appends the fast path gives up on; the general path answers them (values or problems). */
  const leftToGeneral: [string, () => Uint8Array][] = [
    ['a negative INT64', () => encode({ id: 'a', at: AT, n: -1 })],
    ['a timestamp before 1970', () => encode({ id: 'a', at: -5 })],
    ['NaN', () => encode({ id: 'a', at: AT, x: Number.NaN })],
    ['an infinite double', () => encode({ id: 'a', at: AT, x: Number.POSITIVE_INFINITY })],
    ['-0', () => encode({ id: 'a', at: AT, x: -0 })],
    ['a JSON column that does not parse', () => encode({ id: 'a', at: AT, data: '{nope' })],
    ['microseconds beyond 2^53', () => encode({ id: 'a', at: 9_007_199_254_740_992 })],
    ['a REQUIRED column left out', wire((w) => w.uint32(16).int64(AT))],
    [
      'invalid UTF-8',
      wire((w) =>
        w
          .uint32(10)
          .bytes(Buffer.from([0x61, 0xff, 0x62]))
          .uint32(16)
          .int64(AT),
      ),
    ],
    [
      'a field given twice',
      wire((w) => w.uint32(10).string('a').uint32(10).string('b').uint32(16).int64(AT)),
    ],
    [
      'a field the writer did not declare',
      wire((w) => w.uint32(10).string('a').uint32(16).int64(AT).uint32(792).int32(1)),
    ],
    // Field 3 (n, an INT64) sent length-delimited.
    [
      'a wire type that is not the field’s',
      wire((w) => w.uint32(10).string('a').uint32(16).int64(AT).uint32(26).string('7')),
    ],
    // A string of 50 bytes of which 3 follow.
    [
      'a string running past its row',
      () => Buffer.concat([wire((w) => w.uint32(16).int64(AT).uint32(10).uint32(50))(), Buffer.from('abc')]),
    ],
    // tags (field 8) twice, with `at` between.
    [
      'a repeated field whose values are not in one run',
      wire((w) =>
        w.uint32(10).string('a').uint32(66).string('x').uint32(16).int64(AT).uint32(66).string('y'),
      ),
    ],
    // ok (field 5) as the two-byte varint 0x81 0x00.
    [
      'a boolean of more than one byte',
      () => Buffer.concat([encode({ id: 'a', at: AT }), Buffer.from([40, 0x81, 0x00])]),
    ],
  ];
  for (const [what, row] of leftToGeneral)
    it(`leaves ${what} to the general path, for the whole append`, () => {
      const rows = [encode({ id: 'ok', at: AT }), row()];
      assert.equal(fast(rows), undefined);
      // The general path still decides the row (here: with or without a problem), alone.
      const { values, problems } = general(rows);
      assert.equal(values.length + problems.length, 2);
    });

  it('takes a JSON column’s text exactly when JSON.parse does (checked in its bytes)', () => {
    const texts = [
      '0',
      '-0',
      '12',
      '-12.5e+3',
      '1E9',
      '0.5',
      '"s"',
      '"\\u00e9\\n\\/\\"\\\\"',
      'true',
      'false',
      'null',
      ' [ ] ',
      '{}',
      '[1, [2, {"a": null}], "x"]',
      '{"a":{"b":[true,false]}}',
      '"é 😀"',
      '\t\r\n1\n',
      '',
      ' ',
      '01',
      '-',
      '1.',
      '.5',
      '+1',
      '1e',
      '1e+',
      '0x1',
      'NaN',
      'Infinity',
      'tru',
      'nul',
      'True',
      '"a',
      '"\\x"',
      '"\\u12g4"',
      '"\\u123"',
      '"tab\there"',
      '[1,]',
      '{"a":1,}',
      '{"a"}',
      '{a:1}',
      '[1 2]',
      '{"a":1}}',
      '1 2',
      "'s'",
      '[',
      ']',
      '{',
      '"\\',
      '\u00a01',
      `[${'1,'.repeat(50)}1]`,
    ];
    for (const data of texts) {
      let parses = true;
      try {
        JSON.parse(data);
      } catch {
        parses = false;
      }
      const text = fast([encode({ id: 'j', at: AT, data })]);
      assert.equal(text !== undefined, parses, JSON.stringify(data));
      if (text) assert.equal(text[0]?.['data'], data);
    }
    // Deeper than the check goes: left to the general path, which takes it.
    const deep = `${'['.repeat(100)}${']'.repeat(100)}`;
    assert.equal(fast([encode({ id: 'j', at: AT, data: deep })]), undefined);
    assert.deepEqual(general([encode({ id: 'j', at: AT, data: deep })]).problems, []);
  });

  it('reads packed repeated values as unpacked ones', () => {
    const w = protobuf.Writer.create();
    w.uint32(10).string('p').uint32(16).int64(AT);
    // nums = 9: packed [1, 300, 2].
    w.uint32((9 << 3) | 2)
      .fork()
      .int64(1)
      .int64(300)
      .int64(2)
      .ldelim();
    const packed = w.finish();
    const text = fast([packed]);
    assert.ok(text);
    assert.deepEqual(text[0]?.['nums'], [1, 300, 2]);
    const c = convertRow(FIELDS, text[0], false);
    assert.ok('values' in c);
    assert.deepEqual(c.values, general([packed]).values[0]);
  });

  it('has no fast path for columns without a text form or writers whose types differ from the table', () => {
    const withDate = [...SCHEMA, { name: 'day', type: 'DATE' }];
    assert.equal(fastRows(schemaFor(withDate).type, normaliseSchema(withDate) as FieldSchema[]), undefined);
    // The writer sends `n` as a string while the table's column is an INT64.
    const asText = SCHEMA.map((f) => (f.name === 'n' ? { ...f, type: 'STRING' } : f));
    assert.equal(fastRows(schemaFor(asText).type, FIELDS), undefined);
    // A column the writer lacks is NULL, unless it is REQUIRED.
    const fewer = SCHEMA.filter((f) => f.name !== 'ok');
    assert.ok(fastRows(schemaFor(fewer).type, FIELDS));
    const required = SCHEMA.filter((f) => f.name !== 'at');
    assert.equal(fastRows(schemaFor(required).type, FIELDS), undefined);
  });

  it('names columns as the table does when the writer’s case differs', () => {
    const upper = SCHEMA.map((f) => (f.name === 'ok' ? { ...f, name: 'OK' } : f));
    const writer = schemaFor(upper);
    const row = writer.type.encode(writer.type.fromObject({ id: 'a', at: AT, OK: true })).finish();
    const text = fast([row], writer);
    assert.equal(text?.[0]?.['ok'], true);
  });

  it('joins the appends of one group commit into one array, in a buffer kept for the next group', () => {
    const arrays = (...items: unknown[][]) => items.map((a) => Buffer.from(JSON.stringify(a)));
    const first = joinArrays(arrays([{ id: 'a' }, { id: 'b' }], [{ id: 'é' }], [{ id: 'c', n: [1, 2] }]));
    assert.deepEqual(JSON.parse(first.array.toString()), [
      { id: 'a' },
      { id: 'b' },
      { id: 'é' },
      { id: 'c', n: [1, 2] },
    ]);
    // While the first group's statement runs, another join takes a buffer of its own.
    const meanwhile = joinArrays(arrays([{ id: 'x' }], [{ id: 'y' }]));
    assert.notEqual(meanwhile.array.buffer, first.array.buffer);
    meanwhile.release();
    first.release();
    // The next, shorter group reuses the last released buffer: nothing of the longer one shows.
    const next = joinArrays(arrays([{ id: 'd' }], [{ id: 'e' }]));
    assert.equal(next.array.buffer, first.array.buffer);
    assert.deepEqual(JSON.parse(next.array.toString()), [{ id: 'd' }, { id: 'e' }]);
    next.release();
  });
});
