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
import { BadValue, type RowDescriptor, type RowField, rowEncoder } from '../../adapters/proto-rows.ts';

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
});
