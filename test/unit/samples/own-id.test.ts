/**
 * The event's own id (issue #94, core/samples/own-id.ts and its use in guess.ts): a column named
 * as an event id beside the payload's own plain id is asked about, never filled silently; where
 * the payload describes an object of the name's words (`eventData` beside `eventId`), the column
 * is that object's id and the payload's own id is preselected. Delivery, request and trace ids are
 * never the event's.
 */
import assert from 'node:assert/strict';
import { guessChoices, inferFields, parseSample } from '../../../core/samples/index.ts';

function guess(body: unknown) {
  const sample = parseSample(JSON.stringify(body));
  return guessChoices(inferFields(sample), sample.rows);
}
type Guessed = ReturnType<typeof guess>;
const idQuestion = (g: Guessed) => g.questions.find((q) => q.target === 'event_id');
const eventIds = (g: Guessed) => g.columns.filter((c) => c.target === 'event_id').map((c) => c.column);

describe('creator: the event’s own id', () => {
  it('preselects the payload’s own id when the named one is the id of an object it describes', () => {
    const g = guess({
      id: 206,
      eventId: 98146,
      contactId: 41,
      email: 'jane@example.com',
      eventData: { name: 'Weekly call', location: 'online' },
    });
    assert.deepEqual(eventIds(g), ['id']);
    const q = idQuestion(g);
    assert.deepEqual(
      q?.options.map((o) => o.column),
      ['id', 'eventId'],
    );
    assert.match(q?.options[1]?.why ?? '', /describes that event \(eventData\): its id, a reference/);
    assert.equal(g.columns.find((c) => c.column === 'eventId')?.target, 'event_data');
    // Asked, so shown with no more certainty than a question's.
    assert.equal(g.columns.find((c) => c.column === 'id')?.confidence, 0.5);
  });

  it('asks, the named one preselected, when the payload has its own id beside it and describes nothing by that name', () => {
    const g = guess({
      event_id: 'webhook-event-1',
      id: 'user-1',
      action: 'CREATE',
      user: { name: 'Ada', created_at: '2024-01-02T03:04:05Z' },
    });
    assert.deepEqual(eventIds(g), ['event_id']);
    assert.deepEqual(
      idQuestion(g)?.options.map((o) => o.column),
      ['event_id', 'id'],
    );
    assert.equal(g.columns.find((c) => c.column === 'event_id')?.confidence, 0.5);
  });

  it('fills a named event id without asking where the payload has no id of its own beside it', () => {
    const g = guess({
      event_id: 'cb91d714',
      event_type: 'clicked',
      event_data: { ip: '203.0.113.9', user_agent: 'Mozilla/5.0' },
    });
    assert.deepEqual(eventIds(g), ['event_id']);
    assert.equal(idQuestion(g), undefined);
  });

  it('does not count an id two rows share, or one inside another object, as the payload’s own', () => {
    const rows = [
      { id: 'a', messageId: 'm1', message: { subject: 'Hi' } },
      { id: 'a', messageId: 'm2', message: { subject: 'Hello' } },
    ];
    const sample = parseSample(JSON.stringify(rows));
    const g = guessChoices(inferFields(sample), sample.rows);
    assert.deepEqual(eventIds(g), ['messageId']);
    assert.equal(idQuestion(g), undefined);
    const nested = guess({ messageId: 'm1', data: { id: 'o1', status: 'sent' } });
    assert.equal(idQuestion(nested), undefined);
  });

  it('never takes a delivery’s, a request’s or a trace’s id as the event’s', () => {
    const ids = {
      request_id: 'req_1',
      trace_id: '4bf92f3577b34da6a3ce929d0e0e4736',
      span_id: '00f067aa0ba902b7',
    };
    const g = guess({ ...ids, delivery_id: 'dlv_1', type: 'order.paid', data: { id: 'o1', status: 'paid' } });
    // Only the order's own id is offered (record-id.ts), asked: none of the others.
    assert.deepEqual(eventIds(g), ['data.id']);
    assert.deepEqual(
      idQuestion(g)?.options.map((o) => o.column),
      ['data.id'],
    );
  });

  it('asks whether an event id is one delivery’s where the envelope names its subscription and no time', () => {
    const notice = {
      subscriptionId: '692597070fe21cfa5e6a010f',
      eventId: '692597070fe21cfa5e6a010a',
      eventType: 'booking.created',
      identifiers: { bookingId: '507f1f77bcf86cd799439011', patientId: '507f191e810c19729de860ea' },
    };
    const g = guess(notice);
    // The named id stays preselected: a delivery's id only makes a retry a second row.
    assert.deepEqual(eventIds(g), ['eventId']);
    const q = idQuestion(g);
    assert.deepEqual(
      q?.options.map((o) => o.column),
      ['eventId', 'identifiers.bookingId'],
    );
    assert.match(q?.ask ?? '', /names what it was delivered to \(subscriptionId\) and nothing of when/);
    assert.equal(g.columns.find((c) => c.column === 'eventId')?.confidence, 0.5);
    // A time of the event, or an attempt counter, says the id is the event's: filled, not asked.
    for (const more of [{ occurredAt: '2026-11-20T10:00:00Z' }, { attemptNumber: 0 }]) {
      const filled = guess({ ...notice, ...more });
      assert.deepEqual(eventIds(filled), ['eventId'], JSON.stringify(more));
      assert.equal(idQuestion(filled), undefined, JSON.stringify(more));
    }
    // No subscription or endpoint named: nothing says it is a delivery.
    const { subscriptionId: _, ...bare } = notice;
    assert.equal(idQuestion(guess(bare)), undefined);
  });

  it('takes the column named for the event over one named for a message, whichever comes first', () => {
    const batch = {
      events: [
        {
          event: 'delivery',
          timestamp: 1763632800,
          message_id: '7c1e5a8e-93b1-4b1c-9a53-2f0d6c1f5d11',
          email: 'ada@example.com',
          event_id: '0b6f0c3e-5d7a-4e0a-8f0e-5c2b9d7f3a20',
        },
      ],
    };
    const sample = parseSample(JSON.stringify(batch), { records: 'events' });
    const g = guessChoices(inferFields(sample), sample.rows);
    // Once taken as the event's by coming first: every event of that e-mail shares it.
    assert.deepEqual(eventIds(g), ['event_id']);
    assert.equal(g.columns.find((c) => c.column === 'message_id')?.target, 'event_data');
    assert.equal(g.columns.find((c) => c.column === 'event_id')?.confidence, 0.9);
    // Another spelling, another record, the same reading.
    assert.deepEqual(eventIds(guess({ msgId: 'm-81', eventId: 'e-19', type: 'opened' })), ['eventId']);
    assert.deepEqual(eventIds(guess({ message_uuid: 'm-81', event_uuid: 'e-19' })), ['event_uuid']);
  });

  it('keeps a message’s id as the event’s where nothing beside it is named for the event', () => {
    assert.deepEqual(eventIds(guess({ message_id: 'm-81', type: 'inbound', from: '+4915112345678' })), [
      'message_id',
    ]);
    // An event id inside another object, or always empty, names no event of this payload.
    assert.deepEqual(eventIds(guess({ message_id: 'm-81', context: { event_id: 'e-19' } })), ['message_id']);
    assert.deepEqual(eventIds(guess({ message_id: 'm-81', event_id: null, type: 'sent' })), ['message_id']);
  });

  it('asks whether a notification’s id is the event’s where the payload says nothing of when', () => {
    const g = guess({
      notification_id: 123455,
      organizer: 'acme',
      event: 'democon',
      code: 'AB12C',
      action: 'x.order.placed',
    });
    // Once filled as the event's without asking: the payload's position and name were all it had.
    const q = idQuestion(g);
    assert.deepEqual(
      q?.options.map((o) => o.column),
      ['notification_id'],
    );
    assert.equal(g.columns.find((c) => c.column === 'notification_id')?.confidence, 0.5);
    // With when it happened beside it, the notification is the event's: filled.
    const dated = guess({
      notificationId: 'n-9',
      eventType: 'net.payment.held',
      eventDate: '2026-11-20T10:00:00Z',
    });
    assert.deepEqual(eventIds(dated), ['notificationId']);
    assert.equal(idQuestion(dated), undefined);
  });
});
