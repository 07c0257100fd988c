/**
 * A column named as the event's id that one payload cannot vouch for (issue #94,
 * core/samples/named-event-id.ts): in a record's body that names no event, `event_id` may be the
 * id of an event the record belongs to, and the page asks with nothing preselected; in an
 * envelope beside the own id of the record it wraps, the named id may be one delivery's, and the
 * page asks with it preselected. An envelope that names its event, wraps a record, or counts its
 * delivery attempts keeps the plain fill.
 */
import assert from 'node:assert/strict';
import { guessChoices, inferFields, parseSample } from '../../../core/samples/index.ts';

function guess(body: unknown) {
  const sample = parseSample(JSON.stringify(body));
  return guessChoices(inferFields(sample), sample.rows);
}
const filled = (body: unknown) =>
  guess(body)
    .columns.filter((c) => c.target === 'event_id')
    .map((c) => c.column);
const idQuestion = (body: unknown) => guess(body).questions.find((q) => q.target === 'event_id');

/** A box office's ticket download: the show's id and date beside the order's own ids. */
const download = {
  order_id: 17,
  event_id: 4,
  event_date: '2026-12-05 20:00:00',
  created_at: '2026-11-20 10:12:00',
  downloaded_at: '2026-11-21 08:30:00',
  uid: 'k2Jd9sQm1xLp0aZ',
  name: 'Ada Byron',
  email: 'ada@example.org',
  total: 60,
};

describe('the creator: an event id in a record that names no event', () => {
  it('asks, nothing preselected, where it used to fill the show’s event_id as the event’s', () => {
    assert.deepEqual(filled(download), []);
    const q = idQuestion(download);
    assert.ok(q?.noneGuessed, 'no answer preselected');
    assert.deepEqual(
      q?.options.map((o) => o.column),
      ['event_id', 'order_id', 'uid'],
    );
    const c = guess(download).columns.find((x) => x.column === 'event_id');
    assert.equal(c?.target, 'event_data');
  });

  it('asks for a booking whose eventId is the booked meeting’s, written in camel case', () => {
    const booking = {
      bookingUuid: '5f0c2a9e-8d7b-4c1a-9e3f-2b6d7a8c9e01',
      eventId: 'mtg-intro-30',
      startTime: '2026-12-01T15:00:00Z',
      attendeeEmail: 'sam@example.net',
    };
    assert.deepEqual(filled(booking), []);
    assert.deepEqual(
      idQuestion(booking)?.options.map((o) => o.column),
      ['eventId', 'bookingUuid'],
    );
  });

  it('fills it as before when a column beside it names the event', () => {
    assert.deepEqual(filled({ ...download, event_type: 'tickets.downloaded' }), ['event_id']);
    assert.deepEqual(filled({ ...download, topic: 'tickets/download' }), ['event_id']);
  });

  it('asks where a column named for the same thing gives it a title: an occasion’s name, no event’s', () => {
    // The shape a ticket shop's order webhook filled wrong: the show's id and name, the order's id.
    const order = {
      email: 'a1b2c3d4e5f6...',
      order_id: 1234,
      event_id: 322,
      event_name: 'Angels East Fest',
      currency: 'GBP',
      order_value: 45,
      line_items: [{ type: 'ticket', name: 'General Admission', quantity: 2, total: 40 }],
    };
    assert.deepEqual(filled(order), []);
    const q = idQuestion(order);
    assert.ok(q?.noneGuessed, 'no answer preselected');
    assert.deepEqual(
      q?.options.map((o) => o.column),
      ['event_id', 'order_id'],
    );
    const camel = {
      bookingId: 'b-81',
      eventId: 'ev-9',
      eventName: 'Intro Call with Sam',
      start: '2026-12-01',
    };
    assert.deepEqual(filled(camel), []);
    assert.deepEqual(
      idQuestion(camel)?.options.map((o) => o.column),
      ['eventId', 'bookingId'],
    );
  });

  it('fills as before where that column holds a code, or another column names the event', () => {
    for (const name of ['order.completed', 'ORDER_COMPLETED', 'orders/paid', 'purchase'])
      assert.deepEqual(filled({ ...download, event_name: name }), ['event_id'], name);
    // A title under the discriminator's own name, or one beside it, is a kind of event.
    assert.deepEqual(filled({ ...download, event: 'Order Completed' }), ['event_id']);
    assert.deepEqual(filled({ ...download, event_name: 'Angels East Fest', type: 'order.completed' }), [
      'event_id',
    ]);
  });

  it('fills it as before when the event’s name sits in the envelope’s meta', () => {
    assert.deepEqual(filled({ event_id: 'e-77a1', meta: { type: 'order.paid' }, order: 3 }), ['event_id']);
  });

  it('fills it as before when the payload wraps its record in an envelope object', () => {
    const body = { event_id: 'c1a7e2d0-4b7f-4e0e-9a51-0d6f3b2a1c99', payload: { member: 9, plan: 'pro' } };
    assert.deepEqual(filled(body), ['event_id']);
  });
});

describe('the creator: an envelope’s named event id beside its record’s own id', () => {
  /** An investment platform's envelope: its eventId may be one delivery's. */
  const created = {
    eventId: 'wde_3b7c1f0a9d2e',
    eventType: 'subscription.created',
    occurredAt: '2026-11-02T09:00:00Z',
    data: { subscriptionSlug: 'sub_q1w2e3', investorId: 'psn_77', status: 'pending' },
  };

  it('asks, the named id preselected, where it used to fill it without a question', () => {
    assert.deepEqual(filled(created), ['eventId']);
    const q = idQuestion(created);
    assert.equal(q?.noneGuessed, undefined);
    assert.deepEqual(
      q?.options.map((o) => o.column),
      ['eventId', 'data.subscriptionSlug'],
    );
  });

  it('offers a wrapped record’s plain id beside a snake-case event_id', () => {
    const body = {
      event_id: '0b6f1a2c-7d3e-4f5a-8b9c-0d1e2f3a4b5c',
      type: 'payment.updated',
      created_at: '2026-11-02T09:00:00Z',
      data: { id: 'pay_551', amount: 1200, currency: 'EUR' },
    };
    assert.deepEqual(
      idQuestion(body)?.options.map((o) => o.column),
      ['event_id', 'data.id'],
    );
  });

  it('does not ask when the envelope counts its delivery attempts', () => {
    const q = idQuestion({ ...created, attempt: 1 });
    assert.ok(!q?.options.some((o) => o.column === 'data.subscriptionSlug'), JSON.stringify(q));
    assert.deepEqual(filled({ ...created, attempt: 1 }), ['eventId']);
  });

  it('does not take the id of another record the type only mentions for the record’s own', () => {
    const body = {
      eventId: 'evt_991',
      eventType: 'FORM_RESPONSE',
      createdAt: '2026-11-02T09:00:00Z',
      data: { formId: 'f_12', fields: 'x' },
    };
    assert.equal(idQuestion(body), undefined);
    assert.deepEqual(filled(body), ['eventId']);
  });

  it('does not ask of an envelope that wraps nothing', () => {
    const body = { eventId: 'evt_3', eventType: 'user.deleted', occurredAt: '2026-11-02T09:00:00Z' };
    assert.equal(idQuestion(body), undefined);
  });
});
