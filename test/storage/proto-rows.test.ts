/**
 * adapters/proto-rows.ts: a row's insertAll JSON, encoded straight into the Write API's protocol
 * buffer bytes, decodes (with protobufjs and the descriptor Google's storage client makes from the
 * same schema) to the message the Write API expects: timestamps in microseconds, dates in days,
 * JSON as text, RECORDs nested, REPEATED fields as lists. Values of no form are refused by column.
 */
import assert from 'node:assert/strict';
import storage from '@google-cloud/bigquery-storage';
import protobuf from 'protobufjs';
import 'protobufjs/ext/descriptor/index.js';
import {
  BadValue,
  type RowDescriptor,
  type RowField,
  rowEncoder,
  timestampMicros,
} from '../../adapters/proto-rows.ts';

// A table with every type the pipeline's tables use, nested and repeated, as GetWriteStream gives it.
const FIELDS: RowField[] = [
  { name: 'event_id', type: 'STRING', mode: 'REQUIRED' },
  { name: 'event_time', type: 'TIMESTAMP', mode: 'REQUIRED' },
  { name: 'day', type: 'DATE', mode: 'NULLABLE' },
  { name: 'attempt', type: 'INT64', mode: 'NULLABLE' },
  { name: 'value', type: 'DOUBLE', mode: 'NULLABLE' },
  { name: 'consented', type: 'BOOL', mode: 'NULLABLE' },
  { name: 'digest', type: 'BYTES', mode: 'NULLABLE' },
  { name: 'payload', type: 'JSON', mode: 'NULLABLE' },
  { name: 'price', type: 'NUMERIC', mode: 'NULLABLE' },
  { name: 'tags', type: 'STRING', mode: 'REPEATED' },
  { name: 'counts', type: 'INT64', mode: 'REPEATED' },
  {
    name: 'user',
    type: 'STRUCT',
    mode: 'NULLABLE',
    fields: [
      { name: 'user_id', type: 'STRING', mode: 'NULLABLE' },
      { name: 'seen_at', type: 'TIMESTAMP', mode: 'NULLABLE' },
      {
        name: 'ids',
        type: 'STRUCT',
        mode: 'REPEATED',
        fields: [
          { name: 'kind', type: 'STRING', mode: 'NULLABLE' },
          { name: 'value', type: 'STRING', mode: 'NULLABLE' },
        ],
      },
    ],
  },
];

const descriptor = storage.adapt.convertStorageSchemaToProto2Descriptor(
  { fields: FIELDS as never },
  'root',
) as RowDescriptor;
// What the Write API does with the bytes: decode them as the writer's descriptor says.
const Row = (protobuf.Type as unknown as { fromDescriptor(d: unknown): protobuf.Type }).fromDescriptor(
  descriptor,
);
const encoder = rowEncoder(FIELDS, descriptor);
const decode = (bytes: Uint8Array) =>
  Row.toObject(Row.decode(bytes), { longs: String, bytes: String, arrays: false, defaults: false });

/** A one-TIMESTAMP-column row through the encoder, read back by protobufjs: its microseconds. */
const TIMESTAMP_ROW = { name: 'r', field: [{ name: 't', number: 1, type: 3, label: 1 }] };
const timestampOnly = rowEncoder([{ name: 't', type: 'TIMESTAMP' }], TIMESTAMP_ROW);
const TimestampType = (
  protobuf.Type as unknown as { fromDescriptor(d: unknown): protobuf.Type }
).fromDescriptor(TIMESTAMP_ROW);
const timestampThrough = (t: string): string =>
  String(
    (
      TimestampType.toObject(TimestampType.decode(timestampOnly.encode({ t })), { longs: String }) as {
        t: string;
      }
    ).t,
  );

describe('storage: rows encoded for the Storage Write API from their insertAll JSON', () => {
  it('decodes, with the client descriptor, to the Write API forms of every type', () => {
    const row = {
      event_id: 'evt-1',
      event_time: '2026-01-02T03:04:05.123456Z',
      day: '2026-01-02',
      attempt: '9007199254740993',
      value: 19.99,
      consented: true,
      digest: Buffer.from('abc').toString('base64'),
      payload: { currency: 'EUR', items: [{ id: 'sku-1' }] },
      price: '12.50',
      tags: ['a', 'b'],
      counts: [1, -2, '3'],
      user: {
        user_id: 'u1',
        seen_at: '2026-01-02T04:04:05.5+01:00',
        ids: [
          { kind: 'email_sha256', value: 'f'.repeat(64) },
          { kind: 'phone_sha256', value: 'e'.repeat(64) },
        ],
      },
    };
    assert.deepEqual(decode(encoder.encode(row)), {
      event_id: 'evt-1',
      event_time: '1767323045123456',
      day: 20455,
      attempt: '9007199254740993',
      value: 19.99,
      consented: true,
      digest: Buffer.from('abc').toString('base64'),
      payload: '{"currency":"EUR","items":[{"id":"sku-1"}]}',
      price: '12.50',
      tags: ['a', 'b'],
      counts: ['1', '-2', '3'],
      user: {
        user_id: 'u1',
        seen_at: '1767323045500000',
        ids: [
          { kind: 'email_sha256', value: 'f'.repeat(64) },
          { kind: 'phone_sha256', value: 'e'.repeat(64) },
        ],
      },
    });
  });

  it('writes the bytes protobufjs writes for those values (packing as the descriptor says; nulls left out)', () => {
    const ours = encoder.encode({
      event_id: 'evt-2',
      event_time: '1970-01-01T00:00:01.000001Z',
      attempt: -5,
      user: null,
      tags: [],
      payload: 'already text',
    });
    const theirs = Row.encode(
      Row.fromObject({
        event_id: 'evt-2',
        event_time: '1000001',
        attempt: '-5',
        payload: 'already text',
      }),
    ).finish();
    assert.deepEqual(decode(ours), decode(theirs));
    assert.equal(Buffer.compare(Buffer.from(ours), Buffer.from(theirs)), 0);
    // A REPEATED INT64 is written packed, as the descriptor's option says (field 11, wire type 2:
    // one length-delimited run). protobufjs itself ignores that option for proto2 and writes one
    // tag per value; a parser reads both, and the decoded lists are equal.
    const packed = encoder.encode({ counts: [1, -2] });
    assert.equal(packed[0], (11 << 3) | 2);
    assert.deepEqual(decode(packed), { counts: ['1', '-2'] });
  });

  it('refuses a value of no form, naming the column, as BigQuery refuses the row', () => {
    const refused = (row: Record<string, unknown>): string => {
      try {
        encoder.encode({ event_id: 'e', event_time: '2026-01-01T00:00:00Z', ...row });
      } catch (e) {
        assert.ok(e instanceof BadValue, String(e));
        return e.message;
      }
      assert.fail(`not refused: ${JSON.stringify(row)}`);
    };
    assert.match(refused({ event_time: 'not a time' }), /timestamp \(event_time\)/);
    assert.match(refused({ attempt: 1.5 }), /INT64 \(attempt\)/);
    assert.match(refused({ attempt: '99999999999999999999' }), /out of range for INT64 \(attempt\)/);
    assert.match(refused({ day: '2026-13-45' }), /date \(day\)/);
    assert.match(refused({ value: 'cheap' }), /DOUBLE \(value\)/);
    assert.match(refused({ consented: 'yes' }), /BOOL \(consented\)/);
    assert.match(refused({ tags: 'a' }), /non-repeated field or vice versa \(tags\)/);
    assert.match(refused({ tags: ['a', null] }), /null \(tags\)/);
    assert.match(refused({ price: { amount: 1 } }), /NUMERIC \(price\)/);
    assert.match(refused({ user: 'u1' }), /RECORD \(user\)/);
    assert.match(refused({ user: { nickname: 'x' } }), /no such field: nickname/);
    assert.match(refused({ nickname: null }), /no such field: nickname/);
  });
  it('writes long, non-ASCII and nested values (lengths past one byte) as protobufjs writes them', () => {
    const long = `https://shop.example.com/products/42?utm_source=news&utm_campaign=${'x'.repeat(200)}`;
    const row = {
      event_id: 'é€😀 short',
      event_time: '2026-11-26T08:00:00.000001Z',
      payload: { text: 'ñ'.repeat(100) },
      tags: ['a'.repeat(42), 'b'.repeat(43), `ü${'c'.repeat(41)}`],
      // A RECORD longer than 127 bytes: its length takes two bytes, the message moves on by one.
      user: { user_id: long, ids: [{ kind: 'k', value: 'v'.repeat(300) }] },
    };
    const theirs = Row.encode(
      Row.fromObject({
        event_id: row.event_id,
        event_time: '1795680000000001',
        payload: JSON.stringify(row.payload),
        tags: row.tags,
        user: { user_id: long, ids: [{ kind: 'k', value: 'v'.repeat(300) }] },
      }),
    ).finish();
    assert.equal(Buffer.compare(Buffer.from(encoder.encode(row)), Buffer.from(theirs)), 0);
    // A lone surrogate is no UTF-8: it is written as U+FFFD, as protobufjs writes it in a long
    // string (in a short one it writes the surrogate's three bytes, which are not valid UTF-8).
    assert.equal(decode(encoder.encode({ event_id: 'lone \ud800' })).event_id, 'lone \ufffd');
  });

  it('encodes an append into one buffer, leaving out and naming the rows it refuses', () => {
    const good = (n: number) => ({ event_id: `e${n}`, event_time: '2026-01-01T00:00:00Z', attempt: n });
    const { rows, refused } = encoder.encodeAll([good(1), { ...good(2), attempt: 'two' }, good(3)]);
    assert.deepEqual(refused, [{ index: 1, message: "Could not parse 'two' as INT64 (attempt)." }]);
    assert.deepEqual(
      rows.map((r) => decode(r)),
      [1, 3].map((n) => ({ event_id: `e${n}`, event_time: '1767225600000000', attempt: String(n) })),
    );
    // Each row is a view of one buffer, its bytes those of the row encoded alone.
    assert.equal(rows[0]?.buffer, rows[1]?.buffer);
    assert.deepEqual(Buffer.from(rows[1] as Uint8Array), Buffer.from(encoder.encode(good(3))));
  });

  it('reuses an append’s buffer once it is released, and only then', () => {
    const rows = Array.from({ length: 50 }, (_, n) => ({
      event_id: `e${n}`,
      event_time: '2026-01-01T00:00:00Z',
    }));
    const first = encoder.encodeAll(rows);
    const held = encoder.encodeAll(rows);
    assert.notEqual(held.rows[0]?.buffer, first.rows[0]?.buffer);
    first.release();
    first.release(); // once is enough; twice must not hand the buffer out twice
    const second = encoder.encodeAll(rows);
    const third = encoder.encodeAll(rows);
    assert.equal(second.rows[0]?.buffer, first.rows[0]?.buffer);
    assert.notEqual(third.rows[0]?.buffer, first.rows[0]?.buffer);
    for (const e of [held, second, third]) e.release();
  });

  it('reads a fraction of ten digits or more the same whatever the spelling around it', () => {
    // Date.parse reads `.0123456789` as 123 ms (a number, its leading zero dropped).
    for (const t of [
      '2024-01-01T00:00:00.0123456789Z',
      '2024-01-01T00:00:00.0123456789+00:00',
      '2024-01-01 00:00:00.0123456789Z',
      '2024-01-01T01:00:00.01234567890123+01:00',
    ]) {
      const micros = timestampThrough(t);
      assert.equal(micros, '1704067200012345', t);
    }
  });

  it('reads insertAll timestamps without Date.parse to the same microseconds as with it', () => {
    // The encoder's own reading of `YYYY-MM-DDTHH:MM:SS[.f]Z` against Date.parse's, over forms in
    // and out of it: leap days, the last second of a day, years far from the epoch, fractions of
    // every length, offsets, and texts only Date.parse reads (or neither does).
    const texts = [
      '2026-11-26T08:00:00Z',
      '2026-11-26T08:00:00.1Z',
      '2026-11-26T08:00:00.123Z',
      '2026-11-26T08:00:00.123456Z',
      '2026-11-26T08:00:00.1234567891Z',
      '2024-02-29T23:59:59.999999Z',
      '2023-02-29T00:00:00Z',
      '2024-04-31T00:00:00Z',
      '2024-01-01T24:00:00Z',
      '2024-01-01T23:59:60Z',
      '1969-12-31T23:59:59.999500Z',
      '1900-03-01T00:00:00Z',
      '0001-01-01T00:00:00Z',
      '2255-06-05T23:47:34.740991Z',
      '9999-12-31T23:59:59.999999Z',
      '2026-11-26T08:00:00.Z',
      '2026-11-26T08:00:00z',
      '2026-11-26 08:00:00Z',
      '2026-11-26T09:00:00+01:00',
      '2026-11-26',
      'not a time',
    ];
    for (const t of texts) {
      let ours: string | undefined;
      try {
        ours = timestampThrough(t);
      } catch (e) {
        assert.ok(e instanceof BadValue, String(e));
      }
      assert.equal(ours, timestampMicros(t)?.toString(), t);
    }
  });
});
