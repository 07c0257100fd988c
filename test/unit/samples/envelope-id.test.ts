/**
 * An envelope's id beside its record's (issue #94, core/samples/envelope-id.ts and its use in
 * guess.ts): a top-level `id` beside the own id of the record the envelope wraps (`data.id`,
 * `payload.id`, `data.object.id`) is the event's only with evidence (the envelope says it is an
 * event, its id is typed by a word of its own kind, or it counts its delivery attempts); without
 * any, the page asks which is the event's, with no answer preselected, and never fills the
 * envelope's id silently.
 */
import assert from 'node:assert/strict';
import { envelopeIdEvidence } from '../../../core/samples/envelope-id.ts';
import { guessChoices, inferFields, parseSample } from '../../../core/samples/index.ts';

/** The page's steps on one body: the columns taken as the event's id, and the event-id questions. */
function guess(body: unknown) {
  const sample = parseSample(JSON.stringify(body));
  const fields = inferFields(sample);
  const g = guessChoices(fields, sample.rows);
  return {
    g,
    fields,
    rows: sample.rows,
    ids: g.columns.filter((c) => c.target === 'event_id').map((c) => c.column),
    asks: g.questions.filter((q) => q.target === 'event_id'),
  };
}

const UUID_A = '550e8400-e29b-41d4-a716-446655440000';
const UUID_B = '019a5a3c-f1ce-7066-86ae-1ed35540a7ce';

describe('the creator: an envelope’s id beside its record’s', () => {
  it('asks, nothing preselected, about a UUID envelope id beside data.id and the event’s type', () => {
    // The shape a support webhook filled wrong: its top-level id is the delivery's.
    const { g, ids, asks } = guess({
      event: 'conversation.created',
      id: UUID_A,
      organization_id: 'org-1',
      data: { id: UUID_B, title: 'Help', created_at: '2025-11-06T17:35:34+00:00' },
    });
    assert.deepEqual(ids, []);
    assert.equal(asks.length, 1);
    assert.ok(asks[0]?.noneGuessed, 'no answer preselected');
    assert.deepEqual(
      asks[0]?.options.map((o) => o.column),
      ['id', 'data.id'],
    );
    assert.match(asks[0]?.ask ?? '', /each retry becomes a second row/);
    const id = g.columns.find((c) => c.column === 'id');
    assert.equal(id?.target, 'event_data');
    assert.match(id?.why ?? '', /not one delivery's/);
    assert.equal(id?.confidence, 0.5);
  });

  it('asks the same of a number beside payload.id, and of a UUID beside data.object.id', () => {
    const number = guess({ id: 20190131191810, action: 'created', payload: { id: 3, course_id: 68 } });
    assert.deepEqual(number.ids, []);
    assert.deepEqual(
      number.asks[0]?.options.map((o) => o.column),
      ['id', 'payload.id'],
    );
    const deep = guess({ uuid: UUID_A, kind: 'invoice.paid', data: { object: { id: 'in_42', total: 5 } } });
    assert.deepEqual(deep.ids, []);
    assert.deepEqual(
      deep.asks[0]?.options.map((o) => o.column),
      ['uuid', 'data.object.id'],
    );
  });

  it('fills a Stripe-like event id: typed evt_, the envelope saying it is an event', () => {
    const { ids, asks } = guess({
      id: 'evt_1NqLw2',
      object: 'event',
      type: 'charge.succeeded',
      created: 1648320032,
      data: { object: { id: 'ch_3MmlLr', amount: 2000, currency: 'usd' } },
    });
    assert.deepEqual(ids, ['id']);
    assert.deepEqual(asks, []);
  });

  it('fills an id typed by a word of its own kind, with no declaration beside it', () => {
    for (const id of ['wh_123', 'WH-9UG43882HX', 'msg_2xWq', 'notif_78c1'])
      assert.deepEqual(
        guess({ id, event: 'user.created', data: { id: 'user_01FAEA', email: 'a@example.com' } }).ids,
        ['id'],
      );
  });

  it('fills an envelope that names itself an event, whatever its ids look like', () => {
    for (const object of ['webhook_event', 'notification_event', 'event'])
      assert.deepEqual(guess({ id: UUID_A, object, data: { id: UUID_B } }).ids, ['id'], object);
  });

  it('fills an envelope that counts its delivery attempts: its id stays the same on a retry', () => {
    const { ids, asks } = guess({
      id: UUID_A,
      name: 'sms.delivery',
      attempt_number: 1,
      data: { id: UUID_B },
    });
    assert.deepEqual(ids, ['id']);
    assert.deepEqual(asks, []);
  });

  it('asks where the prefix says a delivery or a request, or is the record’s own', () => {
    for (const body of [
      { id: 'del_8f2k', type: 'invoice.paid', data: { id: 'in_9' } },
      { id: 'req_77aa', type: 'invoice.paid', data: { id: 'in_9' } },
      { id: 'in_1', type: 'invoice.paid', data: { id: 'in_9' } },
    ]) {
      const { ids, asks } = guess(body);
      assert.deepEqual(ids, [], body.id);
      assert.ok(asks[0]?.noneGuessed, body.id);
    }
  });

  it('reads a type naming a calendar event as no declaration of the envelope', () => {
    const calendar = guess({ id: UUID_A, type: 'event.created', payload: { id: UUID_B } });
    assert.equal(envelopeIdEvidence(calendar.fields, calendar.rows, 'id', 'payload.id'), undefined);
    assert.deepEqual(calendar.ids, []);
    const declared = guess({ id: UUID_A, type: 'notification_event', payload: { id: UUID_B } });
    assert.match(
      envelopeIdEvidence(declared.fields, declared.rows, 'id', 'payload.id') ?? '',
      /says it is an event/,
    );
  });

  it('leaves a batch’s envelope to the batch’s own question', () => {
    const { asks } = guess({
      id: 'b-77',
      type: 'payment.captured',
      data: { id: 'pay_1', status: 'captured', events: [{ type: 'opened' }] },
    });
    assert.equal(asks.length, 1);
    assert.deepEqual(
      asks[0]?.options.map((o) => o.column),
      ['id'],
    );
    assert.equal(asks[0]?.noneGuessed, undefined);
  });

  it('asks nothing where no wrapped record has an id of its own', () => {
    for (const body of [
      { id: UUID_A, event: 'order.paid', customer: { id: UUID_B, email: 'a@example.com' } },
      { id: UUID_A, event: 'order.paid', data: { total: 5, currency: 'EUR' } },
      { id: UUID_A, event: 'order.paid', data: { id: UUID_A, total: 5 } },
    ]) {
      const { ids, asks } = guess(body);
      assert.deepEqual(ids, ['id']);
      assert.deepEqual(asks, []);
    }
  });
});
