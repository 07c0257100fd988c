/**
 * The rules of core/samples/own-id.ts one by one (docs/testing.md, its mutation run): which
 * names refer to another thing, which column is the payload's own id, which object a compound
 * name's words describe, and what the question and the rewritten guesses say.
 */
import assert from 'node:assert/strict';
import { inferFields, parseSample } from '../../../core/samples/index.ts';
import { deliveredIdQuestion, namedForAnotherRecord, ownIdQuestion } from '../../../core/samples/own-id.ts';

/**
 * The guesses of a payload whose `named` column the creator took as the event's id, every other
 * column an event field unless `targets` says otherwise.
 */
function guessesOf(body: unknown, named: string, targets: Record<string, string> = {}) {
  const sample = parseSample(JSON.stringify(body));
  const fields = inferFields(sample);
  const base = fields.map((f) => ({
    column: f.name,
    target: f.name === named ? 'event_id' : (targets[f.name] ?? 'event_data'),
    why: 'as guessed',
  }));
  return { fields, rows: sample.rows, base };
}
/** The own-id question of such a payload, with the guesses after it. */
function ask(body: unknown, named: string, targets: Record<string, string> = {}) {
  const { fields, rows, base } = guessesOf(body, named, targets);
  const question = ownIdQuestion(fields, rows, base);
  return { question, base, options: question?.options.map((o) => o.column) };
}
const guessOf = (r: ReturnType<typeof ask>, column: string) => r.base.find((g) => g.column === column);

/** A booking's notice: what it was delivered to, the named id, the type naming its record. */
const notice = { subscriptionId: 's1', eventId: 'e1', eventType: 'booking.created', bookingId: 'b1' };
/** A booking's webhook: the booking's own id beside the booked calendar event's. */
const booking = (eventData: Record<string, unknown>) => ({ id: 206, eventId: 98146, eventData });

describe('creator: the event’s own id, rule by rule', () => {
  it('doubts only a compound name ending in id or uuid: a plain id or another key names nothing else', () => {
    for (const named of ['uuid', '_id', 'event_guid', 'event_identifier', 'event_key']) {
      const r = ask({ id: 'ord_1', [named]: 'k_1', total: 12 }, named);
      assert.equal(r.question, undefined, named);
      assert.equal(guessOf(r, named)?.target, 'event_id', named);
    }
    for (const named of ['event_uuid', 'message_id', 'calendarEventId'])
      assert.deepEqual(ask({ id: 'ord_1', [named]: 'k_1', total: 12 }, named).options, [named, 'id'], named);
  });

  it('takes only a plain id as the payload’s own: `id`, `_id`, `uuid`, not a name that holds one', () => {
    for (const own of ['id', '_id', '__id', 'uuid', 'ID'])
      assert.deepEqual(ask({ [own]: 'p_1', eventId: 'e_1' }, 'eventId').options, ['eventId', own], own);
    for (const other of ['contactId', 'paid', 'identity', 'idempotency_key', 'uuid_v4'])
      assert.equal(ask({ [other]: 'p_1', eventId: 'e_1' }, 'eventId').question, undefined, other);
  });

  it('takes the payload’s own id only as text or a whole number guessed as an event field', () => {
    // A timestamp first, so that each column is judged by its own type.
    const sent = { sent_at: '2026-11-20T10:00:00Z' };
    assert.deepEqual(ask({ ...sent, id: 'p_1', eventId: 'e_1' }, 'eventId').options, ['eventId', 'id']);
    assert.deepEqual(ask({ ...sent, id: 7, eventId: 'e_1' }, 'eventId').options, ['eventId', 'id']);
    assert.equal(ask({ ...sent, id: '2026-11-20', eventId: 'e_1' }, 'eventId').question, undefined);
    for (const target of ['user_id', 'user.external_id', 'skip'])
      assert.equal(
        ask({ id: 'usr_1', eventId: 'e_1' }, 'eventId', { id: target }).question,
        undefined,
        target,
      );
  });

  it('reads a column under the payload’s `event` object against its own object', () => {
    const body = { event: { id: 'evt_1', message_id: 'msg_1', type: 'bounce' }, bounce: { type: 'hard' } };
    assert.deepEqual(ask(body, 'event.message_id').options, ['event.message_id', 'event.id']);
    // The message it describes beside the column: the column is that message's id.
    const described = ask(
      { event: { id: 'evt_1', message_id: 'msg_1', message: { subject: 'Your order' } } },
      'event.message_id',
    );
    assert.deepEqual(described.options, ['event.id', 'event.message_id']);
    assert.match(
      described.question?.options[1]?.why ?? '',
      /describes that message \(event\.message\): its id/,
    );
    // A message described elsewhere in the payload is another one's.
    const elsewhere = ask(
      { payload: { message: { subject: 'Your order' } }, event: { id: 'evt_1', message_id: 'msg_1' } },
      'event.message_id',
    );
    assert.deepEqual(elsewhere.options, ['event.message_id', 'event.id']);
  });

  it('takes as described only an object named by all the name’s words, holding a detail that is no id', () => {
    const described = ask(booking({ venue: { city: 'Oslo' } }), 'eventId');
    assert.deepEqual(described.options, ['id', 'eventId']);
    assert.match(described.question?.options[1]?.why ?? '', /describes that event \(eventData\): its id/);
    const calendar = ask(
      { id: 'b_1', calendarEventId: 'ce_1', calendarEvent: { name: 'Weekly call' } },
      'calendarEventId',
    );
    assert.deepEqual(calendar.options, ['id', 'calendarEventId']);
    assert.match(calendar.question?.options[1]?.why ?? '', /describes that calendar event \(calendarEvent\)/);
    for (const [what, body, named] of [
      [
        'ids only',
        booking({ calendarId: 12, organizerUserId: 5, host_user_uuid: 'u-1', organizer: { id: 7 } }),
        'eventId',
      ],
      ['empty', booking({ notes: null, location: null }), 'eventId'],
      [
        'some of the words',
        { id: 'b_1', calendarEventId: 'ce_1', calendar: { name: 'Team' } },
        'calendarEventId',
      ],
      ['a column, not an object', { id: 'b_1', eventId: 'e_1', event_type: 'booking.created' }, 'eventId'],
    ] as const)
      assert.deepEqual(ask(body, named).options, [named, 'id'], what);
  });

  it('says why each option is one, and rewrites the guesses so the first option is the one taken', () => {
    const described = ask(booking({ name: 'Weekly call' }), 'eventId');
    assert.equal(
      described.question?.ask,
      "Which column is the event's own id? eventId is named as one, id is the payload's own: a wrong one folds different events into one.",
    );
    assert.deepEqual(described.question?.options, [
      { column: 'id', why: "the payload's own id: the id of what it is about" },
      {
        column: 'eventId',
        why: 'named as an event id, but the payload describes that event (eventData): its id, a reference',
      },
    ]);
    assert.deepEqual(guessOf(described, 'id'), {
      column: 'id',
      target: 'event_id',
      why: "the payload's own id: the id of what it is about; asked above, preselected",
    });
    assert.deepEqual(guessOf(described, 'eventId'), {
      column: 'eventId',
      target: 'event_data',
      // A field's name that is not a reserved one.
      field: 'event_id_data',
      why: 'named as an event id, but the payload describes that event (eventData): its id, a reference; kept as a field, asked above',
    });
    const named = ask({ id: 'usr_1', event_id: 'whe_1' }, 'event_id');
    assert.deepEqual(named.question?.options, [
      {
        column: 'event_id',
        why: 'named as an event id, but the payload has its own id (id) beside it, and the name may refer to something it mentions',
      },
      { column: 'id', why: "the payload's own id: the id of what it is about" },
    ]);
    // Asked, not swapped: the guesses stay as they were.
    assert.equal(guessOf(named, 'event_id')?.why, 'as guessed');
    assert.equal(guessOf(named, 'id')?.target, 'event_data');
  });

  describe('whether a named event id is one delivery’s', () => {
    const delivered = (body: Record<string, unknown>, named = 'eventId') => {
      const { fields, base } = guessesOf(body, named);
      return deliveredIdQuestion(fields, base);
    };

    it('reads each name of what a delivery was sent to, whole and at the envelope’s top only', () => {
      const { subscriptionId: _, ...bare } = notice;
      for (const name of [
        'subscription_id',
        'webhook_subscription_id',
        'endpointId',
        'hook_uuid',
        'destination_id',
        'webhook_id',
      ])
        assert.equal(delivered({ ...bare, [name]: 'to_1' })?.options[0]?.column, 'eventId', name);
      for (const name of ['customer_subscription_id', 'subscription_id_hash'])
        assert.equal(delivered({ ...bare, [name]: 'to_1' }), undefined, name);
      assert.equal(delivered({ ...bare, subscriptionId: null }), undefined);
      assert.equal(delivered({ ...bare, meta: { subscriptionId: 'sub_1' } }), undefined);
    });

    it('asks only about a compound name, with no time anywhere and no attempt counted', () => {
      assert.ok(delivered(notice));
      assert.ok(delivered({ ...notice, request_id: 'req_1' }));
      for (const more of [{ booked_for: '2026-11-20' }, { created: 1763632800 }, { created: 1763632800000 }])
        assert.equal(delivered({ ...notice, ...more }), undefined, JSON.stringify(more));
      assert.equal(delivered({ ...notice, uuid: 'u_1' }, 'uuid'), undefined);
    });

    it('offers the record the type names beside it, never the named id or what it was sent to', () => {
      assert.deepEqual(delivered(notice)?.options, [
        {
          column: 'eventId',
          why: "named as an event id, beside subscriptionId: the event's, or one delivery's",
        },
        {
          column: 'bookingId',
          why: "the id of the booking the event's type (eventType) names: a later change of it would be folded into the first",
        },
      ]);
      for (const type of ['event.created', 'subscription.renewed']) {
        const { bookingId: _, ...bare } = { ...notice, eventType: type };
        assert.deepEqual(
          delivered(bare)?.options.map((o) => o.column),
          ['eventId'],
          type,
        );
      }
    });
  });

  describe('whether an id named for a notification is one sending’s', () => {
    const sent = (body: Record<string, unknown>, named: string) => {
      const { fields, base } = guessesOf(body, named);
      return deliveredIdQuestion(fields, base);
    };
    const slugs = { notification_id: 123, organizer: 'acme', code: 'AB12C', action: 'shop.order.placed' };

    it('asks about a notification’s id with nothing beside it, its name the evidence', () => {
      const q = sent(slugs, 'notification_id');
      assert.equal(
        q?.ask,
        "Is notification_id the event's own id? Its name says it is a notification's, one sending of the event, and the payload says nothing of when the event happened: a vendor may give each delivery attempt its own id, and then a retry is a second row.",
      );
      assert.deepEqual(q?.options, [
        { column: 'notification_id', why: "named for a notification: the event's, or one sending's" },
      ]);
      for (const [body, named] of [
        [{ notificationId: 'n1', type: 'invoice.paid', invoiceId: 'i1' }, 'notificationId'],
        [{ webhook_notification_id: 'n1', topic: 'refund' }, 'webhook_notification_id'],
        [{ event: { notif_id: 'n1', kind: 'ticket' } }, 'event.notif_id'],
      ] as const)
        assert.equal(sent(body, named)?.options[0]?.column, named, named);
      // The record the type names is offered beside it.
      assert.deepEqual(
        sent({ notificationId: 'n1', type: 'invoice.paid', invoiceId: 'i1' }, 'notificationId')?.options.map(
          (o) => o.column,
        ),
        ['notificationId', 'invoiceId'],
      );
    });

    it('asks nothing beside a time, an attempt counter, or of a name for anything but a notification', () => {
      for (const more of [{ eventDate: '2026-11-20T10:00:00Z' }, { created: 1763632800 }, { attempt: 2 }])
        assert.equal(sent({ ...slugs, ...more }, 'notification_id'), undefined, JSON.stringify(more));
      for (const named of ['order_id', 'message_id', 'notification_uuid_v2'])
        assert.equal(sent({ [named]: 'x1', action: 'created' }, named), undefined, named);
      // Under another object, it is that object's.
      assert.equal(
        sent({ data: { notification_id: 'n1' }, action: 'created' }, 'data.notification_id'),
        undefined,
      );
    });
  });

  describe('whether an id is named for another record beside one named for the event', () => {
    const refused = (body: Record<string, unknown>, column: string) =>
      namedForAnotherRecord(guessesOf(body, column).fields, column);

    it('refuses a record’s compound id beside a top-level id named for the event', () => {
      for (const [body, column, record, beside] of [
        [{ message_id: 'm1', event_id: 'e1' }, 'message_id', 'message', 'event_id'],
        [{ msgId: 'm1', eventId: 7 }, 'msgId', 'msg', 'eventId'],
        [{ message_uuid: 'm1', webhook_event_id: 'e1' }, 'message_uuid', 'message', 'webhook_event_id'],
        [{ event: { message_id: 'm1', event_id: 'e1' } }, 'event.message_id', 'message', 'event.event_id'],
      ] as const)
        assert.equal(
          refused(body, column),
          `named for a ${record}, which every event of it may share; ${beside} beside it is named for the event`,
          column,
        );
    });

    it('refuses nothing named for the event or a copy, a plain id, or with no event name beside it', () => {
      for (const [body, column] of [
        [{ event_id: 'e1', message_id: 'm1' }, 'event_id'],
        [{ dedup_id: 'd1', event_id: 'e1' }, 'dedup_id'],
        [{ id: 'i1', event_id: 'e1' }, 'id'],
        [{ message_id: 'm1', id: 'i1' }, 'message_id'],
        [{ message_id: 'm1', event_id: null }, 'message_id'],
        [{ message_id: 'm1', event_id: true }, 'message_id'],
        [{ message_id: 'm1', data: { event_id: 'e1' } }, 'message_id'],
        [{ data: { message_id: 'm1' }, event_id: 'e1' }, 'data.message_id'],
        [{ message_id: 'm1', event_name: 'sent' }, 'message_id'],
      ] as const)
        assert.equal(refused(body, column), undefined, `${column} in ${JSON.stringify(body)}`);
    });
  });
});
