/**
 * The rules of core/samples/delivery.ts one at a time (delivery.test.ts runs whole vendor shapes
 * through the draft): a delivery column is known by its whole name AND its values, where it sits
 * in the envelope, and with its reason in words; the vendor's own event id is at the envelope's
 * top, shaped as an id, in every row and unique; failing that, an object's id is a key only with
 * the change it reports, read from that object and the envelope's top, never from elsewhere.
 */
import assert from 'node:assert/strict';
import {
  atEnvelopeTop,
  deliveryColumns,
  envelopeEventId,
  vendorKey,
} from '../../../core/samples/delivery.ts';
import { inferFields, parseSample } from '../../../core/samples/index.ts';
import type { InferredField, ParsedSample } from '../../../core/samples/sample.ts';

/** A sample of JSON rows as the creator reads it. */
function read(...rows: object[]) {
  const sample = parseSample(JSON.stringify(rows.length === 1 ? rows[0] : rows));
  return { sample, fields: inferFields(sample) };
}
/** The delivery columns of the rows: column → kind. */
const kinds = (...rows: object[]) =>
  Object.fromEntries(deliveryColumns(read(...rows).fields).map((d) => [d.column, d.kind]));
/** The vendor's key of the rows: its columns, or undefined. */
const keyOf = (...rows: object[]) => {
  const { sample, fields } = read(...rows);
  return vendorKey(sample, fields)?.columns;
};
const eventId = (...rows: object[]) => {
  const { sample, fields } = read(...rows);
  return envelopeEventId(sample.rows, fields);
};
/** One column as inferFields would give it, for a type its values alone would not give. */
const column = (
  name: string,
  type: InferredField['type'],
  examples: unknown[],
  extra = {},
): InferredField => ({
  name,
  type,
  examples,
  distinct: examples.length,
  nullable: false,
  ...extra,
});
/** Rows as a sample: the key reads only a sample's rows. */
const sampleOf = (rows: Record<string, unknown>[]) =>
  ({ rows }) as Pick<ParsedSample, 'rows'> as ParsedSample;

const AT = '2026-11-23T11:59:00Z';
const nested = { event: { name: 'signup', plan: 'pro' } };

describe('the creator: the rules of a delivery’s metadata', () => {
  it('reads a name in snake case whatever its spelling: camel case, dashes and blanks', () => {
    assert.deepEqual(kinds({ deliveryAttempts: 1, ...nested }), { deliveryAttempts: 'attempt' });
    assert.deepEqual(kinds({ 'delivery-attempts': 1, ...nested }), { 'delivery-attempts': 'attempt' });
    assert.deepEqual(kinds({ 'Delivery - Attempts': 1, ...nested }), { 'Delivery - Attempts': 'attempt' });
  });

  it('takes a name whole: a longer name that starts or ends with a listed one is the event’s', () => {
    const event = {
      quiz_attempts: 3,
      attempts_allowed: 5,
      order_delivered_at: AT,
      delivery_date_promised: AT,
      invoice_sent_at: AT,
      sent_to_kitchen_at: AT,
      customer_request_id: 'req_1',
      request_id_type: 'ticket',
      customer_signature: 'https://cdn.example/sig.png',
      signature_method: 'drawn',
      order_delivery: { address: 'Main St 1' },
      delivery_address: { city: 'Berlin' },
      ...nested,
    };
    assert.deepEqual(kinds(event), {});
  });

  it('a message id is the delivery’s only under that whole name, beside a counter at the top', () => {
    assert.deepEqual(kinds({ reply_to_message_id: 'm0', message_ids: 'm1', deliveryTries: 1, ...nested }), {
      deliveryTries: 'attempt',
    });
    // A counter inside an envelope, or a top-level delivery time, does not make it the delivery's.
    assert.deepEqual(kinds({ message_id: 'm1', delivery: { attempt: 2 }, ...nested }), {
      'delivery.attempt': 'attempt',
    });
    assert.deepEqual(kinds({ message_id: 'm1', sent_at: AT, ...nested }), { sent_at: 'delivery_time' });
  });

  it('an attempt counter is whole numbers from 0 to 100, all of them', () => {
    const counter = (examples: unknown[], type: InferredField['type'] = 'integer') =>
      deliveryColumns([column('attempt', type, examples)]).map((d) => d.kind);
    assert.deepEqual(counter([0, 100]), ['attempt']);
    assert.deepEqual(counter(['1', '2']), ['attempt']);
    assert.deepEqual(counter([1, 101]), []);
    assert.deepEqual(counter([500]), []);
    assert.deepEqual(counter([-1]), []);
    assert.deepEqual(counter([true, false], 'boolean'), []);
    assert.deepEqual(counter(['1', '2'], 'string'), []);
  });

  it('a delivery time is a time: a timestamp, a date or epoch seconds or milliseconds', () => {
    const time = (f: InferredField) => deliveryColumns([f]).map((d) => d.kind);
    assert.deepEqual(time(column('delivered_at', 'date', ['2026-11-23'])), ['delivery_time']);
    assert.deepEqual(time(column('delivered_at', 'integer', [1_764_000_000], { pattern: 'epoch_seconds' })), [
      'delivery_time',
    ]);
    assert.deepEqual(
      time(column('delivered_at', 'integer', [1_764_000_000_000], { pattern: 'epoch_millis' })),
      ['delivery_time'],
    );
    assert.deepEqual(time(column('delivered_at', 'string', ['yesterday'])), []);
    assert.deepEqual(time(column('delivered_at', 'integer', [12])), []);
  });

  it('a send time is the delivery’s only at the top of an envelope, not in a flat record or inside', () => {
    assert.deepEqual(kinds({ sent_at: AT, ...nested }), { sent_at: 'delivery_time' });
    // A flat export of e-mails: sent_at is when the message was sent, the event itself.
    assert.deepEqual(kinds({ campaign: 'c1', sent_at: AT }), {});
    assert.deepEqual(kinds({ message: { sent_at: AT }, campaign: 'c1' }), {});
  });

  it('a delivery id and a signature are single values: not a yes/no, a signature is text', () => {
    const kind = (f: InferredField) => deliveryColumns([f]).map((d) => d.kind);
    assert.deepEqual(kind(column('delivery_id', 'string', ['d1'])), ['delivery_id']);
    assert.deepEqual(kind(column('delivery_id', 'boolean', [true])), []);
    assert.deepEqual(kind(column('signature', 'string', ['t=1,v1=ab'])), ['signature']);
    // A document signing event's count of signatures is no signature.
    assert.deepEqual(kind(column('signatures', 'integer', [2])), []);
    assert.deepEqual(kind(column('signature.verified', 'boolean', [true])), []);
    assert.deepEqual(kind(column('payload.signature.v1', 'string', ['ab'])), ['signature']);
  });

  it('a column anywhere under a delivery envelope is the delivery’s; a shipping method named delivery is not', () => {
    assert.deepEqual(kinds({ data: { delivery: { node: 'n1', at: AT } }, ...nested }), {
      'data.delivery.node': 'delivery_id',
      'data.delivery.at': 'delivery_time',
    });
    assert.deepEqual(kinds({ delivery: 'express', retry: 'never', ...nested }), {});
  });

  it('says in words why each column is the delivery’s', () => {
    const why = Object.fromEntries(
      deliveryColumns(
        read({
          attempt: 1,
          delivery_time: AT,
          delivery_id: 'd1',
          signature: 'ab',
          message_id: 'm1',
          delivery: { node: 'n1' },
          ...nested,
        }).fields,
      ).map((d) => [d.column, `${d.kind}: ${d.why}`]),
    );
    assert.deepEqual(why, {
      attempt:
        "attempt: attempt counts the vendor's delivery attempts: a retry changes it, the event does not",
      delivery_time:
        'delivery_time: delivery_time is when this delivery was sent: a retry changes it, the event does not',
      delivery_id: 'delivery_id: delivery_id names this delivery, not the event: a retry may carry another',
      signature:
        'signature: signature is a signature in the body: it proves the delivery, it is not the event',
      'delivery.node':
        'delivery_id: delivery.node sits in the delivery envelope: it describes the delivery, not the event',
      message_id:
        "delivery_id: message_id names the message delivered, beside its attempt counter attempt: the delivery's, not the event's",
    });
  });
});

describe('the creator: the rules of the vendor’s own event id', () => {
  it('takes an id at the envelope’s top or in its event object, not deeper', () => {
    assert.equal(eventId({ event: { id: 'e1', name: 'signup' } }), 'event.id');
    assert.equal(eventId({ event: { data: { id: 'e1' } }, kind: 'x' }), undefined);
    assert.equal(eventId({ data: { id: 'e1' }, kind: 'x' }), undefined);
    assert.equal(atEnvelopeTop('event.id'), true);
    assert.equal(atEnvelopeTop('data.id'), false);
    assert.equal(atEnvelopeTop('event.data.id'), false);
  });

  it('takes an id whole, also with leading underscores, and not a name that only starts with one', () => {
    assert.equal(eventId({ _id: 'e1', name: 'n' }), '_id');
    assert.equal(eventId({ __id: 'e1', name: 'n' }), '__id');
    assert.equal(eventId({ identity: 'usr_1', name: 'n' }), undefined);
  });

  it('an id is one token of text or a whole number, in every row and no two alike', () => {
    assert.equal(eventId({ id: 101, name: 'a' }, { id: 102, name: 'b' }), 'id');
    assert.equal(eventId({ id: 'e1' }, { id: 'e2' }), 'id');
    assert.equal(eventId({ id: 'e1' }, { id: 'e1' }), undefined);
    assert.equal(eventId({ id: 'evt 1' }, { id: 'evt_2' }), undefined);
    assert.equal(eventId({ id: 'x'.repeat(256) }), 'id');
    assert.equal(eventId({ id: 'x'.repeat(257) }), undefined);
    assert.equal(eventId({ id: 'e1' }, { name: 'n' }), undefined);
    // A yes/no in one row makes the column text, but no row of an id is a yes/no.
    assert.equal(eventId({ id: 'e1', n: 1 }, { id: true, n: 2 }), undefined);
  });

  it('an e-mail address, a web address or a time is no event id', () => {
    assert.equal(eventId({ unique_id: 'ada@example.com', name: 'n' }), undefined);
    assert.equal(eventId({ id: 'https://api.example.com/events/1', name: 'n' }), undefined);
    assert.equal(eventId({ id: AT, name: 'n' }), undefined);
  });

  it('says the id is the vendor’s own', () => {
    const { sample, fields } = read({ id: 'evt_1', type: 'x' });
    assert.deepEqual(vendorKey(sample, fields), {
      columns: ['id'],
      why: "id is the vendor's own id for the event",
    });
  });
});

describe('the creator: the rules of an object’s id and change as the key', () => {
  it('an object’s id with the envelope’s change alone is a key, and says which', () => {
    const { sample, fields } = read({ type: 'charge.captured', data: { object: { id: 'ch_1', amount: 5 } } });
    assert.deepEqual(vendorKey(sample, fields), {
      columns: ['data.object.id', 'type'],
      why: "the envelope names no event id of its own: data.object.id is the object's, with type for the change",
    });
  });

  it('says each part of the change', () => {
    const { sample, fields } = read({
      type: 'charge.updated',
      data: { object: { id: 'ch_1', status: 'paid', updated_at: AT } },
    });
    assert.match(
      vendorKey(sample, fields)?.why ?? '',
      /, with type and data\.object\.status and data\.object\.updated_at for the change$/,
    );
    const only = vendorKey(sampleOf([{ 'data.object.id': 'ch_1', 'data.object.version': 3 }]), [
      column('data.object.id', 'string', ['ch_1']),
      column('data.object.version', 'integer', [3]),
    ]);
    assert.deepEqual(only?.columns, ['data.object.id', 'data.object.version']);
  });

  it('an object’s id is nested, named id and in every row; the nearest to the top wins', () => {
    assert.equal(keyOf({ type: 'x', data: { amount: 5, name: 'n' } }), undefined);
    assert.equal(keyOf({ id: 'a', type: 'x' }, { id: 'a', type: 'y' }), undefined);
    assert.deepEqual(
      keyOf({ payload: { payment: { entity: { id: 'p1' } } }, data: { id: 'd1' }, type: 'x' }),
      ['data.id', 'type'],
    );
    assert.deepEqual(
      keyOf({ a: { b: { c: { id: 'c1' } } }, d: { e: { id: 'e1' } }, f: { id: 'f1' }, type: 'x' }),
      ['f.id', 'type'],
    );
    for (const missing of [undefined, null, '', ['a', 'b']]) {
      const rows = [
        { type: 'x', 'data.object.id': 'o1' },
        { type: 'y', 'data.object.id': missing },
      ];
      const fields = [column('type', 'string', ['x', 'y']), column('data.object.id', 'string', ['o1'])];
      assert.equal(vendorKey(sampleOf(rows), fields), undefined, JSON.stringify(missing));
    }
  });

  it('never keys on delivery metadata, a yes/no or a decimal number', () => {
    assert.equal(keyOf({ type: 'x', delivery: { id: 'd1' } }), undefined);
    assert.equal(keyOf({ type: 'x', retry: { id: 'r1', attempt: 1 } }), undefined);
    const fields = [
      column('data.object.id', 'string', ['o1']),
      column('data.object.updated', 'boolean', [true]),
      column('data.object.version', 'number', [2.5]),
    ];
    const rows = [{ 'data.object.id': 'o1', 'data.object.updated': true, 'data.object.version': 2.5 }];
    assert.equal(vendorKey(sampleOf(rows), fields), undefined);
  });

  it('the change is the envelope’s top-level type in every row, or the object’s own status or version', () => {
    // Only the envelope's top names the change: not the object's own type, nor its event object.
    assert.deepEqual(keyOf({ event: { name: 'signup' }, data: { object: { id: 'o1', status: 'new' } } }), [
      'data.object.id',
      'data.object.status',
    ]);
    assert.deepEqual(keyOf({ data: { object: { id: 'o1', type: 'card', status: 'new' } } }), [
      'data.object.id',
      'data.object.status',
    ]);
    assert.equal(
      keyOf({ type: 'x', data: { object: { id: 'o1' } } }, { data: { object: { id: 'o2' } } }),
      undefined,
    );
    // Another object's status, a status deeper inside, the envelope's status: none is this object's.
    assert.equal(
      keyOf({
        status: 'ok',
        data: { object: { id: 'o1', charges: { status: 'paid' } }, customer: { status: 'vip' } },
      }),
      undefined,
    );
  });

  it('takes change names whole: a content type, an action’s URL, an estate or a statement are not', () => {
    assert.equal(
      keyOf({
        content_type: 'json',
        action_url: 'https://example.com',
        data: {
          object: {
            id: 'o1',
            real_estate: 'flat',
            statement_descriptor: 'SHOP',
            schema_version: '2',
            updated_by: 'ada',
          },
        },
      }),
      undefined,
    );
  });
});
